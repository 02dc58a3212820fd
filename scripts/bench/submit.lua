-- wrk script: POST /v1/jobs with the small example order (no Idempotency-Key: every request is
-- a new job). Counts the answers by status so the run can be checked against the queue.
local f = assert(io.open(os.getenv("RECEIPT_ORDER") or "Templates/Examples/small.json", "r"))
local order = f:read("*a")
f:close()
wrk.method = "POST"
wrk.path = "/v1/jobs"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"template": "receipt", "printer": "archive", "data": ' .. order .. '}'
