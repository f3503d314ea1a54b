// Splits `owner/name`, refusing anything that could not be a GitHub repository name.

export function splitRepo(repo: string): { owner: string; name: string } {
  const match = /^([\w.-]+)\/([\w.-]+)$/.exec(repo);
  if (!match) throw new TypeError(`"${repo}" is not an owner/name repository`);
  return { owner: match[1]!, name: match[2]! };
}
