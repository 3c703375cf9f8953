-- wrk script: POST the batch of melds in the file BODY names to the batch validator
local file = assert(io.open(os.getenv("BODY"), "r"))
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = file:read("*a")
file:close()
