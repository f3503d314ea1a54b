// Parsing `owner/repo#12` and `owner/repo`, the two ways the CLI names its subjects.
import { UsageError } from "./errors.js";

export interface SubjectRef {
  repo: string;
  issue: number;
}

const namePart = "[A-Za-z0-9_.-]+";
const subjectPattern = new RegExp(`^(${namePart}/${namePart})#(\\d{1,9})$`);
const repoPattern = new RegExp(`^${namePart}/${namePart}$`);

export function parseSubject(text: string): SubjectRef {
  const match = subjectPattern.exec(text.trim());
  const issue = Number(match?.[2]);
  if (!match?.[1] || !Number.isSafeInteger(issue) || issue <= 0) {
    throw new UsageError(`expected an issue as owner/repo#number, got "${text}"`);
  }
  return { repo: match[1], issue };
}

export function parseRepo(text: string): string {
  if (!repoPattern.test(text.trim()))
    throw new UsageError(`expected a repository as owner/repo, got "${text}"`);
  return text.trim();
}

export function formatSubject(subject: SubjectRef): string {
  return `${subject.repo}#${subject.issue}`;
}
