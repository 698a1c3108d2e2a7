-- bench-request.lua: wrk script of `make bench-extender`. Sends the recorded ExtenderArgs body of
-- $BODY to /filter, /prioritize or both alternately ($MODE: filter, prioritize, mix) and prints
-- one machine-readable line: RESULT requests p50_us p99_us requests_per_s errors.
local f = assert(io.open(os.getenv("BODY"), "rb"))
local body = f:read("*a")
f:close()
local mode = os.getenv("MODE") or "mix"
local headers = { ["Content-Type"] = "application/json" }
local filter = wrk.format("POST", "/filter", headers, body)
local prioritize = wrk.format("POST", "/prioritize", headers, body)
local n = 0

request = function()
  if mode == "filter" then
    return filter
  elseif mode == "prioritize" then
    return prioritize
  end
  n = n + 1
  if n % 2 == 1 then
    return filter
  end
  return prioritize
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %.1f %.1f %.1f %d\n", summary.requests,
    latency:percentile(50), latency:percentile(99),
    summary.requests / (summary.duration / 1e6),
    e.status + e.connect + e.read + e.write + e.timeout))
end
