// Breaks: src/node sits below src/extension.
import { CommandId } from "../extension/ids.js";
export const x = CommandId;
