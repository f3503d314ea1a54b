// Batching of one installation's transitions on a clock the test moves: the next request waits out the write spacing with its batch still open.
import { describe, expect, it } from "vitest";
import { buildTransitionMutation } from "../src/providers/github/graphql/index.js";
import type { OctokitLike } from "../src/providers/github/octokit-like.js";
import { TransitionBatcher, WRITE_SPACING_MS } from "../src/providers/github/transition-batcher.js";

function assignment(subject: string) {
  const mutation = buildTransitionMutation({
    subjectNodeId: subject,
    assigneeIds: ["U_bot"],
    unassigneeIds: [],
    addLabelIds: ["LA_claimed"],
    removeLabelIds: [],
    editComments: [],
    addComments: [],
  });
  if (!mutation) throw new Error("expected a mutation");
  return mutation;
}

/** The subjects one document assigns, in order: its `assign` variables, prefixed per subject or not. */
function subjectsOf(variables: Record<string, unknown>): unknown[] {
  return Object.entries(variables)
    .filter(([name]) => /^(s\d+_)?assign$/.test(name))
    .map(([, value]) => (value as { assignableId: string }).assignableId);
}

function world() {
  const clock = { now: 0 };
  const sent: { at: number; subjects: unknown[] }[] = [];
  const sleeps: { ms: number; wake: () => void }[] = [];
  const octokit = {} as OctokitLike;
  const batcher = new TransitionBatcher(
    async (_octokit, _document, variables) => {
      sent.push({ at: clock.now, subjects: subjectsOf(variables) });
      return {};
    },
    {
      now: () => clock.now,
      sleep: (ms) => new Promise<void>((wake) => sleeps.push({ ms, wake })),
      maxBatch: 3,
    },
  );
  const submit = (subject: string) => batcher.submit(7, subject, octokit, assignment(subject));
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { clock, sent, sleeps, batcher, submit, settle };
}

describe("TransitionBatcher's write spacing", () => {
  it("sends a lone transition at once, then holds the batch open until the spacing has passed", async () => {
    const { clock, sent, sleeps, batcher, submit, settle } = world();
    const first = submit("I_1");
    // GitHub answers 40 ms later; the lane stays open for the rest of the spacing.
    clock.now = 40;
    await first;
    await settle();
    expect(sent).toEqual([{ at: 0, subjects: ["I_1"] }]);
    expect(sleeps.map((s) => s.ms)).toEqual([WRITE_SPACING_MS - 40]);
    clock.now = 300;
    const second = submit("I_2");
    clock.now = 900;
    const third = submit("I_3");
    expect(batcher.queued).toBe(2);
    expect(sent).toHaveLength(1);

    clock.now = 1_000;
    sleeps[0]!.wake();
    await Promise.all([second, third]);
    expect(sent).toEqual([
      { at: 0, subjects: ["I_1"] },
      { at: 1_000, subjects: ["I_2", "I_3"] },
    ]);
    expect(batcher.queued).toBe(0);
  });

  it("a full batch does not wait; once the spacing passes with nothing queued, the next transition goes at once", async () => {
    const { clock, sent, sleeps, submit, settle } = world();
    const first = submit("I_1");
    const full = ["I_2", "I_3", "I_4"].map(submit);
    await Promise.all([first, ...full]);
    expect(sent.map((s) => s.subjects)).toEqual([["I_1"], ["I_2", "I_3", "I_4"]]);
    // After the full batch, the lane waits out its spacing with nothing queued, then closes.
    await settle();
    expect(sleeps).toHaveLength(1);
    clock.now = 1_000;
    sleeps[0]!.wake();
    await settle();
    await submit("I_5");
    expect(sent.map((s) => s.subjects)).toEqual([["I_1"], ["I_2", "I_3", "I_4"], ["I_5"]]);
  });
});
