import { describe, expect, it, vi } from "vitest";
import { startTestNode } from "../testing/test-node.js";

describe("head account reads", () => {
  it("share one state read among concurrent requests for an account not yet read at this head", async () => {
    const t = await startTestNode({ mining: { mode: "manual" } });
    try {
      const { chain } = t.node;
      const read = vi.spyOn(chain.headState(), "getAccount");
      const address = t.node.devAccounts[3]!.address.toLowerCase();
      const answers = await Promise.all(
        Array.from({ length: 200 }, () => chain.account(chain.head, address)),
      );
      expect(read).toHaveBeenCalledTimes(1);
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]?.balance).toBe(10_000n * 10n ** 18n);
      // Once read, the account is answered from the head's map without a promise.
      const again = chain.account(chain.head, address);
      expect(again).not.toBeInstanceOf(Promise);
      expect(again).toBe(answers[0]);
      // A new head starts afresh.
      await t.node.producer.mine(1);
      const fresh = vi.spyOn(chain.headState(), "getAccount");
      await Promise.all([chain.account(chain.head, address), chain.account(chain.head, address)]);
      expect(fresh).toHaveBeenCalledTimes(1);
    } finally {
      await t.stop();
    }
  });
});
