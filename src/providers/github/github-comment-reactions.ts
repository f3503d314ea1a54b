// The GitHub CommentReactions: one REST call per reaction.
import type { CommentReactions } from "../comment-reactions.js";
import { describeGitHubError } from "./github-errors.js";
import type { OctokitLike } from "./octokit-like.js";
import { splitRepo } from "./split-repo.js";

export class GitHubCommentReactions implements CommentReactions {
  constructor(private readonly options: { octokitFor: (installationId: number) => Promise<OctokitLike> }) {}

  async react(
    ref: { installationId: number; repo: string },
    commentId: number,
    content: "eyes",
  ): Promise<void> {
    const { owner, name } = splitRepo(ref.repo);
    const octokit = await this.options.octokitFor(ref.installationId);
    try {
      await octokit.request("POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions", {
        owner,
        repo: name,
        comment_id: commentId,
        content,
      });
    } catch (error) {
      throw new Error(
        `failed to react to comment ${commentId} on ${ref.repo}: ${describeGitHubError(error)}`,
        {
          cause: error,
        },
      );
    }
  }
}
