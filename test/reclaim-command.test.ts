import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseReclaimCommand } from "../src/lease/reclaim-command.js";

const take = { kind: "reclaim", release: false } as const;
const release = { kind: "reclaim", release: true } as const;

const rows: [name: string, body: unknown, expected: typeof take | typeof release | null][] = [
  ["bare command", "/reclaim", take],
  ["release", "/reclaim release", release],
  ["command word is case-insensitive", "/Reclaim", take],
  ["release is case-insensitive", "/RECLAIM Release", release],
  ["text after release is ignored", "/reclaim release, back to the queue please", release],
  ["release with punctuation", "/reclaim release.", release],
  ["trailing spaces", "/reclaim   ", take],
  ["tab between words", "/reclaim\trelease", release],
  ["CRLF line endings and later lines", "/reclaim\r\nI'll take it from here.", take],
  ["blank lines first", "\n  \n\t\n/reclaim release\n", release],
  ["up to three spaces of indentation", "   /reclaim", take],
  ["four spaces is an indented code block, nothing follows", "    /reclaim", null],
  ["tab indentation is an indented code block", "\t/reclaim", null],
  ["indented code first, command after", "    npm test\n/reclaim", take],
  ["not the first line", "Thanks!\n/reclaim", null],
  ["not the first word", "please /reclaim", null],
  ["other word after the command", "/reclaim please", null],
  ["typo of release is no command", "/reclaim releaes", null],
  ["releases is not release", "/reclaim releases", null],
  ["a longer word", "/reclaimed", null],
  ["punctuation glued to the command", "/reclaim.", null],
  ["no slash", "reclaim", null],
  ["another command", "/release", null],
  ["quoted command", "> /reclaim", null],
  ["quote reply, own line after a blank line", "> @bot said something\n\n/reclaim", take],
  ["lazy continuation of a quote", "> quoted\n/reclaim", null],
  ["nested quote", "> > /reclaim", null],
  ["fenced code block", "```\n/reclaim\n```", null],
  ["fenced code block with info string", "```sh\n/reclaim\n```\n", null],
  ["tilde fence", "~~~\n/reclaim\n~~~", null],
  ["command after a closed fence", "```\ncode\n```\n/reclaim release", release],
  ["unclosed fence swallows the rest", "```\n/reclaim", null],
  ["a shorter fence does not close a longer one", "````\n```\n/reclaim\n````", null],
  ["a tilde does not close a backtick fence", "```\n~~~\n/reclaim\n```", null],
  ["fence right after a quote line", "> quoted\n```\n/reclaim\n```\n/reclaim", take],
  ["inline code is a paragraph, not a command", "`/reclaim`", null],
  ["empty body", "", null],
  ["only whitespace", " \n\t\n", null],
  ["null body", null, null],
  ["undefined body", undefined, null],
  ["number body", 42, null],
  ["object body", { body: "/reclaim" }, null],
];

describe("parseReclaimCommand", () => {
  it.each(rows)("%s", (_name, body, expected) => {
    expect(parseReclaimCommand(body)).toEqual(expected);
  });
});

describe("parseReclaimCommand properties", () => {
  const seed = Number(process.env.FC_SEED ?? Date.now() % 2 ** 31);
  const runs = { seed, numRuns: 5_000 };
  // Printed so a failure can be replayed with FC_SEED=<seed>.
  console.log(`reclaim-command properties: fast-check seed ${seed}`);

  const valid = (result: unknown) => result === null || (typeof result === "object" && "kind" in result);

  /** Markdown-ish bodies built from the lines that matter to the parser. */
  const line = fc.oneof(
    fc.constantFrom(
      "/reclaim",
      "/reclaim release",
      "/RECLAIM",
      "> /reclaim",
      ">",
      "```",
      "````",
      "~~~",
      "```ts",
      "    /reclaim",
      "\t/reclaim",
      "",
      "   ",
      "text",
    ),
    fc.string({ unit: "binary", maxLength: 40 }),
  );
  const markdown = fc
    .array(line, { maxLength: 12 })
    .chain((lines) => fc.constantFrom("\n", "\r\n", "\r").map((eol) => lines.join(eol)));

  it("never throws, on anything", () => {
    fc.assert(
      fc.property(fc.anything(), (body) => valid(parseReclaimCommand(body))),
      runs,
    );
  });

  it("never throws, on any string (code units, full Unicode, graphemes, Markdown-ish)", () => {
    const strings = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.string({ unit: "binary", maxLength: 300 }),
      fc.string({ unit: "grapheme", maxLength: 100 }),
      markdown,
    );
    fc.assert(
      fc.property(strings, (body) => valid(parseReclaimCommand(body))),
      runs,
    );
  });

  it("a fully quoted comment is never a command", () => {
    fc.assert(
      fc.property(markdown, (body) => {
        const quoted = body
          .split(/\r\n|\r|\n/)
          .map((l) => `> ${l}`)
          .join("\n");
        return parseReclaimCommand(quoted) === null;
      }),
      runs,
    );
  });

  it("a comment inside a closed fence is never a command", () => {
    fc.assert(
      fc.property(markdown, (body) => {
        const fenceLength = 3 + Math.max(0, ...(body.match(/`{3,}|~{3,}/g) ?? []).map((f) => f.length));
        const fence = "`".repeat(fenceLength);
        return parseReclaimCommand(`${fence}\n${body}\n${fence}`) === null;
      }),
      runs,
    );
  });

  it("a leading command line decides, whatever follows", () => {
    fc.assert(
      fc.property(fc.boolean(), markdown, (rel, rest) => {
        const result = parseReclaimCommand(`${rel ? "/reclaim release" : "/reclaim"}\n${rest}`);
        return result?.release === rel;
      }),
      runs,
    );
  });
});
