import { describe, expect, it } from "vitest";
import { defaultLogFormat } from "./logger.js";

describe("defaultLogFormat", () => {
  it("is pretty on a terminal and JSON lines elsewhere", () => {
    expect(defaultLogFormat({}, true)).toBe("pretty");
    expect(defaultLogFormat({}, false)).toBe("json");
  });

  it("follows STRATA_LOG_FORMAT when it names a format", () => {
    expect(defaultLogFormat({ STRATA_LOG_FORMAT: "json" }, true)).toBe("json");
    expect(defaultLogFormat({ STRATA_LOG_FORMAT: "pretty" }, false)).toBe("pretty");
    expect(defaultLogFormat({ STRATA_LOG_FORMAT: "xml" }, false)).toBe("json");
  });
});
