/**
 * The one HTML builder for every panel: a strict CSP (`default-src 'none'`, scripts by nonce only, styles and images
 * from the extension), resources through `asWebviewUri`, and startup data (the panel's state, and the translations
 * of the display language for `@vscode/l10n`) in escaped `data-` attributes.
 */
import { randomBytes } from "node:crypto";
import * as vscode from "vscode";

/** Escape text for a double-quoted attribute value. */
function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [
      vscode.Uri.joinPath(extensionUri, "dist", "webview"),
      vscode.Uri.joinPath(extensionUri, "media"),
    ],
  };
}

export function renderHtml(
  webview: vscode.Webview,
  extensionUri: vscode.Uri,
  bundle: string,
  title: string,
  state: object,
  options: {
    /** The transcript shows a session's images, which the host sends as data: URIs (only raster types). */
    sessionImages?: boolean;
    /** A stylesheet of its own, under media/, after the shared one. */
    stylesheet?: string;
  } = {},
): string {
  const { sessionImages = false } = options;
  const nonce = randomBytes(16).toString("base64");
  // English needs no bundle: the strings in the code are the English text.
  const l10n = JSON.stringify(vscode.l10n.bundle ?? {});
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", "webview", `${bundle}.js`));
  const styles = ["webview.css", ...(options.stylesheet ? [options.stylesheet] : [])].map((name) =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "media", name)).toString(),
  );
  const csp = [
    `default-src 'none'`,
    // Images from the extension, and for the transcript data: URIs the host made of a session's own images; nothing
    // is ever fetched (SECURITY.md).
    `img-src ${webview.cspSource}${sessionImages ? " data:" : ""}`,
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="${escapeAttribute(vscode.env.language)}">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeAttribute(title)}</title>
${styles.map((href) => `<link rel="stylesheet" href="${escapeAttribute(href)}">`).join("\n")}
</head>
<body>
<div id="bootstrap" data-state="${escapeAttribute(JSON.stringify(state))}" data-l10n="${escapeAttribute(l10n)}"></div>
<main id="root" aria-live="polite"><p class="muted">${escapeAttribute(vscode.l10n.t("Loading…"))}</p></main>
<script type="module" nonce="${nonce}" src="${escapeAttribute(script.toString())}"></script>
</body>
</html>`;
}
