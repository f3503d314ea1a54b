// A child process's whole output and exit code, for tests that run the CLI to its end.
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

export interface ChildOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function outputOf(child: ChildProcessByStdio<null, Readable, Readable>): Promise<ChildOutput> {
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((done) => child.on("close", (code) => done({ code, stdout, stderr })));
}
