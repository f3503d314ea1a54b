// 👀 on a command comment, as the App's Gitea account (the CommentReactions port).
import type { CommentReactions } from "../comment-reactions.js";
import { splitRepo } from "../github/split-repo.js";
import type { GiteaClient } from "./gitea-client.js";

export class GiteaCommentReactions implements CommentReactions {
  constructor(private readonly client: GiteaClient) {}

  async react(ref: { installationId: number; repo: string }, commentId: number, content: "eyes") {
    const { owner, name } = splitRepo(ref.repo);
    await this.client.addCommentReaction(owner, name, commentId, content);
  }
}
