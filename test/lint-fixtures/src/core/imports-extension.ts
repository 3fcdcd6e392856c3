// Breaks: src/core must not reach up into src/extension.
import { CommandId } from "../extension/ids.js";
export const x = CommandId;
