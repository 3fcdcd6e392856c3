/**
 * Imported first by every page: the host passes the display language's translations in the bootstrap element's
 * `data-l10n`, and `l10n.t` is set up with them before anything renders.
 */
import * as l10n from "@vscode/l10n";

const contents = document.getElementById("bootstrap")?.dataset.l10n;
if (contents && contents !== "{}") l10n.config({ contents });
