// pi's own loader as a whole process: SessionManager.open on the file, and the entries it read.
import { SessionManager } from "@mariozechner/pi-coding-agent";

const entries = SessionManager.open(process.argv[2]).getEntries().length;
if (entries === 0) process.exitCode = 3;
