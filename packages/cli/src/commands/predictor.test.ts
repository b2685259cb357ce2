import { fileURLToPath } from "node:url";
import { MODEL_VERSION } from "@strata/predictor";
import { describe, expect, it } from "vitest";
import { main } from "../main.js";

const BTC = fileURLToPath(new URL("../../../predictor/data/BTC-USD.csv", import.meta.url));

describe("strata predictor backtest", () => {
  it("prints per horizon the model beside the four baselines", async () => {
    const lines: string[] = [];
    const code = await main(["predictor", "backtest", "--csv", BTC, "--horizon", "7", "--step", "25"], (l) =>
      lines.push(l),
    );
    expect(code).toBe(0);
    const text = lines.join("\n");
    expect(text).toMatch(
      new RegExp(`^BTC-USD\\.csv: 3809 daily closes 2014-09-17\\.\\.2025-02-19; model ${MODEL_VERSION}`),
    );
    expect(text).toMatch(/horizon 7 days: \d+ predictions/);
    for (const metric of [
      "MAPE",
      "directional accuracy",
      "80% interval coverage",
      "Winkler score \\(80%\\)",
      "Brier score",
      "calibration error",
    ]) {
      expect(text).toMatch(new RegExp(`${metric}\\s+\\d+\\.\\d+%?\\s+\\d+\\.\\d+%?`));
    }
  });

  it("exits 2 on bad flags and prints help", async () => {
    expect(await main(["predictor", "backtest", "--horizon", "0", "--csv", BTC], () => {})).toBe(2);
    expect(await main(["predictor", "backtest"], () => {})).toBe(2);
    expect(await main(["predictor", "forecast"], () => {})).toBe(2);
    const help: string[] = [];
    expect(await main(["predictor", "--help"], (l) => help.push(l))).toBe(0);
    expect(help.join("\n")).toMatch(/backtest/);
  });
});
