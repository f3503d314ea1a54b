// The version of the installed claim-hold package, read from the package.json next to the bin.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** `binPath` is `<package>/bin/claim-hold.js`; "0.0.0" when its package.json cannot be read. */
export function packageVersion(binPath: string): string {
  try {
    const text = readFileSync(join(dirname(binPath), "..", "package.json"), "utf8");
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === "string" ? version : "0.0.0";
  } catch {
    return "0.0.0";
  }
}
