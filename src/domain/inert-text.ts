// Invariant 11: text that comes from agents or users, rendered so it can never act in an App comment or check output.
import type { Actor } from "./claim.js";

/** Zero-width, bidi-control and other invisible format characters: they can hide or reorder text. */
const invisible = /\p{Cf}|\u034f|\u115f|\u1160|\u17b4|\u17b5|[\u180b-\u180f]|\u3164|\uffa0/gu;
/** Control characters other than the newline. */
const controls = /\p{Cc}/gu;
/**
 * The characters that can open markup (HTML and so comments, links, images, emphasis, code,
 * tables, headings, entities), each escaped with a backslash as CommonMark allows.
 */
const markup = /[\\`*_[\]<>!|~#&$]/g;
/** GitHub's mention and team-mention start: `@` before a letter, digit or `-`. */
const mentionStart = /@(?=[\p{L}\p{N}_-])/gu;

export interface InertOptions {
  /** Keep line breaks (a note); otherwise they become spaces (a name, a phase). */
  multiline?: boolean;
  /** Longest text kept, in characters; longer text is cut with an ellipsis. */
  max?: number;
}

/**
 * `text` as plain words: no HTML (so no HTML comment and no marker), no link, image, emphasis or
 * heading, no @-mention (a word joiner follows each `@`), nothing invisible. What a reader sees is
 * what the writer typed, minus invisible characters.
 */
export function inert(text: string, options: InertOptions = {}): string {
  const max = options.max ?? 300;
  let value = text.replace(/\r\n?/g, "\n").replace(invisible, "");
  value = options.multiline
    ? value.replace(/[^\S\n]/gu, " ").replace(/(?!\n)\p{Cc}/gu, "")
    : value.replace(/\s+/gu, " ").replace(controls, "");
  value = value.trim();
  if ([...value].length > max) value = `${[...value].slice(0, max).join("")}…`;
  return value.replace(markup, (c) => `\\${c}`).replace(mentionStart, "@\u2060");
}

/** An actor as audit comments and check summaries name it; every agent-chosen part is inert. */
export function describeActor(actor: Actor): string {
  if (actor.kind === "human") return inert(`@${actor.login}`);
  const session = actor.sessionId ? ` session ${inert(actor.sessionId.slice(0, 8))}` : "";
  const host = actor.host ? ` on ${inert(actor.host)}` : "";
  return `${inert(actor.runtime ?? "agent")}${session}${host}`;
}
