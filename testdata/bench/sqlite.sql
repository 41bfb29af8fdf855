-- The SQLite workload of `make bench` (scripts/bench.sh), run by Debian's
-- sqlite3 on an in-memory database: sqlite3 :memory: ".read sqlite.sql".
-- Deterministic: every value is computed from the row number.
CREATE TABLE item(id INTEGER PRIMARY KEY, grp INTEGER, name TEXT, price REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
INSERT INTO item SELECT i, (i * 7919) % 997, printf('item-%05d', (i * 31) % 20011), (i % 97) * 1.25 FROM n;
CREATE INDEX item_grp ON item(grp);
CREATE INDEX item_name ON item(name);
SELECT count(*), sum(grp), total(price) FROM item;
SELECT grp, count(*), round(avg(price), 3) FROM item GROUP BY grp ORDER BY count(*) DESC, grp LIMIT 5;
SELECT count(*) FROM item a JOIN item b ON a.grp = b.grp WHERE a.id <= 400;
UPDATE item SET price = price * 2 WHERE grp < 100;
DELETE FROM item WHERE id % 3 = 0;
SELECT name, price FROM item WHERE name BETWEEN 'item-10000' AND 'item-10100' ORDER BY name LIMIT 5;
SELECT substr(name, 1, 7) AS p, count(*), round(sum(price), 2) FROM item GROUP BY p ORDER BY p;
