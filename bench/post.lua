-- bench/post.lua -- wrk script: POST the JSON file named by $BENCH_BODY (Content-Type application/json).
local f = assert(io.open(os.getenv("BENCH_BODY"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
