// A subject named by a dashboard path or form: `{owner}/{repo}/{issue number}`, checked before anything is read.

/** GitHub's owner and repository names: letters, digits, `-`, `_`, `.` (a subject page's path parts). */
const namePart = /^[A-Za-z0-9_.-]{1,100}$/;
const issueNumber = /^[1-9]\d{0,9}$/;

/** The subject a page path names; null for anything that is not `{owner}/{repo}/{issue number}`. */
export function subjectOfPath(
  owner: string,
  repo: string,
  number: string,
): { repo: string; issue: number } | null {
  if (!namePart.test(owner) || !namePart.test(repo) || !issueNumber.test(number)) return null;
  const issue = Number(number);
  return issue <= 2 ** 31 ? { repo: `${owner}/${repo}`, issue } : null;
}
