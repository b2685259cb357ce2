import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runBacktestCommand } from "./cli.js";
import { MODEL_VERSION } from "./parameters.js";
import { randomWalk } from "./testing/synthetic.js";

const dataPath = (file: string) => fileURLToPath(new URL(`../data/${file}`, import.meta.url));

async function run(argv: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await runBacktestCommand(argv, (line) => lines.push(line));
  return { code, lines };
}

describe("strata predictor backtest", () => {
  it("prints usage for --help", async () => {
    const { code, lines } = await run(["--help"]);
    expect(code).toBe(0);
    expect(lines[0]).toMatch(/^Usage: strata predictor backtest --csv FILE/);
    expect(lines.join("\n")).toMatch(/--horizon/);
  });

  it("prints one table per horizon, model beside the random walk", async () => {
    const { code, lines } = await run([
      "--csv",
      dataPath("SOL-USD.csv"),
      "--horizon",
      "1",
      "--horizon=7",
      "--step",
      "5",
    ]);
    expect(code).toBe(0);
    const text = lines.join("\n");
    expect(lines[0]).toMatch(/^SOL-USD\.csv: 1777 daily closes 2020-04-10\.\.2025-02-19; model strata-/);
    expect(text).toMatch(/horizon 1 day: \d+ predictions/);
    expect(text).toMatch(/horizon 7 days: \d+ predictions/);
    for (const row of ["MAPE", "directional accuracy", "80% interval coverage", "calibration error"]) {
      expect(text).toMatch(new RegExp(`${row}\\s+\\S+\\s+\\S+`));
    }
    expect(text).toMatch(/model\s+rw-vol90\s+ewma-normal\s+ewma-fhs\s+garch/);
    expect(text).toMatch(/Winkler score/);
    expect(text).toMatch(/Diebold-Mariano/);
  });

  it("prints one JSON object with the summary and every scored forecast for --json", async () => {
    const dir = mkdtempSync(join(tmpdir(), "strata-backtest-json-"));
    const file = join(dir, "walk.csv");
    const start = Date.parse("2020-01-01T00:00:00Z");
    const rows = randomWalk(4, 200, 0.02).map(
      (price, i) => `${new Date(start + i * 86_400_000).toISOString().slice(0, 10)},${price}`,
    );
    writeFileSync(file, ["date,close", ...rows].join("\n"));
    const lines: string[] = [];
    expect(await runBacktestCommand(["--csv", file, "--horizon", "7", "--json"], (l) => lines.push(l))).toBe(
      0,
    );
    expect(lines).toHaveLength(1);
    const report = JSON.parse(lines[0]!);
    expect(Object.keys(report)).toEqual(["series", "horizon", "modelVersion", "summary", "forecasts"]);
    expect(report).toMatchObject({ series: "walk.csv", horizon: 7, modelVersion: MODEL_VERSION });
    expect(Object.keys(report.summary)).toEqual(
      expect.arrayContaining([
        "model",
        "baselines",
        "coverageByVolatility",
        "coverageByYear",
        "dieboldMariano",
      ]),
    );
    expect(report.forecasts).toHaveLength(200 - 90 + 1 - 7);
    const first = report.forecasts[0];
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining(["origin", "target", "price", "median", "quantiles", "confidence", "realised"]),
    );
    expect(first.origin).toBe("2020-03-30");
    expect(first.target).toBe("2020-04-06");
    expect(Object.keys(first.quantiles).sort()).toEqual(["10", "25", "5", "50", "75", "90", "95"]);
    for (const key of ["price", "median", "confidence", "realised"]) expect(typeof first[key]).toBe("number");
    expect(first.quantiles["50"]).toBe(first.median);
    expect(await runBacktestCommand(["--csv", file, "--json"], () => {})).toBe(2);
  });

  it("rejects bad flags with one line and exit code 2", async () => {
    for (const argv of [
      [],
      ["--csv"],
      ["--csv", "x.csv", "--horizon", "0"],
      ["--csv", "x.csv", "--horizon", "seven"],
      ["--csv", "x.csv", "--step", "-1"],
      ["--csv", "x.csv", "--warmup", "5"],
      ["--csv", "x.csv", "--bogus"],
      ["--csv", "x.csv", "extra"],
      ["--csv", "a.csv", "--csv", "b.csv"],
    ]) {
      const { code, lines } = await run(argv);
      expect(code, argv.join(" ")).toBe(2);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^strata predictor backtest: .+ \(see --help\)$/);
    }
  });

  it("reports unreadable, malformed and too short files with exit code 1", async () => {
    const dir = mkdtempSync(join(tmpdir(), "predictor-cli-"));
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "date,close\n2024-01-01,abc\n");
    const short = join(dir, "short.csv");
    writeFileSync(short, "date,close\n2024-01-01,1\n2024-01-02,2\n");
    const cases: [string, RegExp][] = [
      [join(dir, "missing.csv"), /cannot read .*missing\.csv/],
      [bad, /bad\.csv: line 2: invalid close "abc"/],
      [short, /short\.csv: insufficient price history/],
    ];
    for (const [file, message] of cases) {
      const { code, lines } = await run(["--csv", file]);
      expect(code).toBe(1);
      expect(lines.at(-1)).toMatch(message);
    }
  });
});
