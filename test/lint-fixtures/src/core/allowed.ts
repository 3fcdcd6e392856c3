// Passes: src/core may import itself, src/protocol and zod.
import { z } from "zod";
import { formatCost } from "../protocol/format.js";
import { isPlainObject } from "./session/index.js";
export const x = [z, formatCost, isPlainObject];
