-- The Lua workload of `make bench` (scripts/bench.sh): sorts N numbers
-- (default 100000) of a linear congruential sequence with table.sort and
-- prints a checksum of the sorted order. Deterministic: integers only.
local n = tonumber(arg[1]) or 100000
local t, x = {}, 12345
for i = 1, n do
  x = (x * 1103515245 + 12345) % 2147483648
  t[i] = x
end
table.sort(t)
local sum = 0
for i = 1, n, 7 do
  sum = (sum * 31 + t[i]) % 1000000007
end
print(n, t[1], t[n], sum)
