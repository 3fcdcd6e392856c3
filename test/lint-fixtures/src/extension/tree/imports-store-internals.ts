// Breaks: the tree's nodes too reach the store through its index only.
import { lastActivity } from "../../node/store/storeSession.js";
export const x = lastActivity;
