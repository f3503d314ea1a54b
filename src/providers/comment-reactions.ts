// The CommentReactions interface: acknowledging a command comment (👀 on receipt).

export interface CommentReactions {
  /** Adds the reaction as the App; repeating it is harmless (GitHub answers 200 for an existing one). */
  react(ref: { installationId: number; repo: string }, commentId: number, content: "eyes"): Promise<void>;
}
