// A signed delivery's repository name checked against the name Gitea gives its id: remembered for a while, then read again.
import { describe, expect, it } from "vitest";
import { DeliveryRepositoryCheck, rememberedNameMs } from "../../src/wiring/gitea-delivery-repository.js";

function checkOver(names: Map<number, string>) {
  const clock = { now: 0 };
  const reads: number[] = [];
  const check = new DeliveryRepositoryCheck(
    async (id) => {
      reads.push(id);
      return names.get(id) ?? null;
    },
    () => clock.now,
  );
  return { check, reads, clock };
}

describe("DeliveryRepositoryCheck", () => {
  it("reads a repository's name once, then trusts it until it is older than rememberedNameMs", async () => {
    const names = new Map([[7, "org/api"]]);
    const { check, reads, clock } = checkOver(names);
    expect(await check.named(7, "org/api")).toBe(true);
    expect(await check.named(7, "ORG/api")).toBe(true);
    expect(reads).toEqual([7]);
    // Renamed, and its old name taken by repository 8: the remembered name is read again in time.
    names.set(7, "org/api-old");
    names.set(8, "org/api");
    clock.now += rememberedNameMs;
    expect(await check.named(7, "org/api")).toBe(false);
    expect(reads).toEqual([7, 7]);
    expect(await check.named(7, "org/api-old")).toBe(true);
    expect(reads).toEqual([7, 7]);
  });

  it("refuses a name that is not the id's (read again first) and an id Gitea does not know", async () => {
    const { check, reads } = checkOver(new Map([[7, "org/api"]]));
    expect(await check.named(7, "org/other")).toBe(false);
    expect(await check.named(7, "org/other")).toBe(false);
    expect(await check.named(9, "org/api")).toBe(false);
    expect(reads).toEqual([7, 7, 9]);
  });
});
