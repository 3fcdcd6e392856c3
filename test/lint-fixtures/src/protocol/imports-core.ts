// Breaks: src/protocol imports only itself and zod.
import { parseSession } from "../core/session/index.js";
export const x = parseSession;
