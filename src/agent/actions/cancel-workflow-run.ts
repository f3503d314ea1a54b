// The Action's keepalive on a lost lease: cancels the workflow run it works in, so no later step pushes over the successor.

/**
 * Asks GitHub to cancel this job's workflow run (`POST …/actions/runs/{id}/cancel`) with
 * `CLAIM_HOLD_CANCEL_TOKEN` (the Action's `github-token`; it needs Actions write). Never throws: the
 * answer is a line for the keepalive's log, and the token never appears in it.
 */
export async function cancelWorkflowRun(
  env: Record<string, string | undefined>,
  fetchImpl: typeof globalThis.fetch,
): Promise<string> {
  const repo = env.GITHUB_REPOSITORY;
  const run = env.GITHUB_RUN_ID;
  const token = env.CLAIM_HOLD_CANCEL_TOKEN;
  if (!repo || !run || !token) return "not cancelling the workflow run: not inside a GitHub Actions job";
  const api = (env.GITHUB_API_URL || "https://api.github.com").replace(/\/+$/, "");
  try {
    const response = await fetchImpl(`${api}/repos/${repo}/actions/runs/${run}/cancel`, {
      method: "POST",
      headers: {
        accept: "application/vnd.github+json",
        authorization: `Bearer ${token}`,
        "user-agent": "claim-hold-action",
      },
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel().catch(() => undefined);
    return response.status === 202
      ? `cancelling workflow run ${run}: the lease was lost`
      : `could not cancel workflow run ${run}: GitHub answered ${response.status}`;
  } catch (error) {
    return `could not cancel workflow run ${run}: ${error instanceof Error ? error.name : "request failed"}`;
  }
}
