// Entry of the CLI bundled for the GitHub Action (scripts/build-action.ts): bin/claim-hold.js without its
// choice between dist/ and tsx, since the bundle carries the source. Type-checked with the rest, so a
// change to main()'s options shows here before a bundle is built.
import { fileURLToPath } from "node:url";
import { main } from "../src/agent/main.js";

const code = await main(process.argv.slice(2), { binPath: fileURLToPath(import.meta.url) });
// Exit explicitly (idle HTTP keep-alive sockets must not hold the process), once stdout is flushed.
process.stdout.write("", () => process.exit(code));
