// Breaks: src/protocol imports only itself and zod.
import { parseSession } from "../core/session.js";
export const x = parseSession;
