-- The Tamar Valley Gazette's newsdesk feeds (Tavistock, Devon), 20 November to 6 December 2026, in
-- mcp-feed-reader-crunchtools' schema (database.py: categories, feeds, entries and the entries_fts full-text
-- index its triggers keep). Entries were fetched by the reader before this snapshot; is_read marks what the
-- desk has opened. Nothing here can be fetched again: the machine has no network.
BEGIN TRANSACTION;
CREATE TABLE IF NOT EXISTS categories (
    id INTEGER PRIMARY KEY,
    name TEXT UNIQUE NOT NULL
);
CREATE TABLE IF NOT EXISTS feeds (
    id INTEGER PRIMARY KEY,
    url TEXT UNIQUE NOT NULL,
    title TEXT,
    site_url TEXT,
    category_id INTEGER REFERENCES categories(id) ON DELETE SET NULL,
    last_fetched TEXT,
    etag TEXT,
    last_modified TEXT,
    created_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY,
    feed_id INTEGER NOT NULL REFERENCES feeds(id) ON DELETE CASCADE,
    guid TEXT NOT NULL,
    title TEXT,
    url TEXT,
    author TEXT,
    content TEXT,
    published TEXT,
    is_read INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL DEFAULT (datetime('now')),
    UNIQUE(feed_id, guid)
);
CREATE VIRTUAL TABLE IF NOT EXISTS entries_fts USING fts5(
    title, content, content=entries, content_rowid=id
);
CREATE TRIGGER IF NOT EXISTS entries_ai AFTER INSERT ON entries BEGIN
    INSERT INTO entries_fts(rowid, title, content)
    VALUES (new.id, new.title, new.content);
END;
CREATE TRIGGER IF NOT EXISTS entries_ad AFTER DELETE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, title, content)
    VALUES ('delete', old.id, old.title, old.content);
END;
CREATE TRIGGER IF NOT EXISTS entries_au AFTER UPDATE ON entries BEGIN
    INSERT INTO entries_fts(entries_fts, rowid, title, content)
    VALUES ('delete', old.id, old.title, old.content);
    INSERT INTO entries_fts(rowid, title, content)
    VALUES (new.id, new.title, new.content);
END;

INSERT INTO categories (id, name) VALUES
 (1, 'Councils'), (2, 'Emergency & Travel'), (3, 'Community'), (4, 'Sport');

INSERT INTO feeds (id, url, title, site_url, category_id, last_fetched, etag, last_modified, created_at) VALUES
 (1, 'https://www.westdevon.gov.uk/news/rss', 'West Devon Borough Council - News', 'https://www.westdevon.gov.uk/news', 1, '2026-12-06T07:30:12+00:00', NULL, 'Sat, 05 Dec 2026 16:02:00 GMT', '2026-09-14 09:12:40'),
 (2, 'https://www.devon.gov.uk/news/category/roads-and-travel/feed/', 'Devon County Council - Roads and travel', 'https://www.devon.gov.uk/news', 2, '2026-12-06T07:30:13+00:00', 'W/"6a1f-93"', NULL, '2026-09-14 09:13:02'),
 (3, 'https://www.dartmoor.gov.uk/about-us/news/rss', 'Dartmoor National Park Authority', 'https://www.dartmoor.gov.uk', 1, '2026-12-06T07:30:14+00:00', NULL, NULL, '2026-09-14 09:13:30'),
 (4, 'https://check-for-flooding.service.gov.uk/rss/target-area/114WAFTAM', 'Flood warnings - River Tamar at Gunnislake', 'https://check-for-flooding.service.gov.uk', 2, '2026-12-06T07:30:15+00:00', NULL, NULL, '2026-10-02 15:40:11'),
 (5, 'https://www.tavistockpanniermarket.co.uk/feed/', 'Tavistock Pannier Market', 'https://www.tavistockpanniermarket.co.uk', 3, '2026-12-06T07:30:16+00:00', NULL, NULL, '2026-09-14 09:14:05'),
 (6, 'https://www.tavistockrfc.co.uk/feed/', 'Tavistock RFC', 'https://www.tavistockrfc.co.uk', 4, '2026-12-06T07:30:17+00:00', NULL, NULL, '2026-09-14 09:14:40'),
 (7, 'https://www.tamarvalleyaonb.org.uk/news/feed', 'Tamar Valley National Landscape', 'https://www.tamarvalleyaonb.org.uk', NULL, '2026-12-06T07:30:18+00:00', NULL, NULL, '2026-11-03 11:20:00');

INSERT INTO entries (id, feed_id, guid, title, url, author, content, published, is_read, created_at) VALUES
 (1, 1, 'wdbc-2026-11-20-budget', 'Council sets out draft budget for 2027/28', 'https://www.westdevon.gov.uk/news/draft-budget-2027-28', 'Communications Team', 'West Devon Borough Council has published its draft budget for 2027/28, proposing a 2.99% rise in its share of council tax and £1.2m of savings. Residents can comment until 8 January 2027.', '2026-11-20T10:00:00+00:00', 1, '2026-11-20 10:31:02'),
 (2, 1, 'wdbc-2026-11-26-bedford-car-park', 'Bedford car park resurfacing from 4 January', 'https://www.westdevon.gov.uk/news/bedford-car-park-works', 'Communications Team', 'Resurfacing of Bedford car park in Tavistock will close half of its spaces from 4 January to 29 January 2027. Market-day parking will be available at Wharf car park.', '2026-11-26T12:15:00+00:00', 0, '2026-11-26 12:30:40'),
 (3, 1, 'wdbc-2026-12-02-planning-0412', 'Planning committee to decide Plymouth Road housing scheme', 'https://www.westdevon.gov.uk/news/planning-committee-december', 'Communications Team', 'The planning committee meets on 15 December to decide application 0412/26/FUL for 96 homes on land off Plymouth Road, Tavistock. Officers recommend approval subject to a Section 106 agreement.', '2026-12-02T09:00:00+00:00', 0, '2026-12-02 09:30:10'),
 (4, 1, 'wdbc-2026-12-05-christmas-bins', 'Christmas and New Year bin collections', 'https://www.westdevon.gov.uk/news/christmas-bins-2026', 'Waste Services', 'Collections due on 25 December move to 27 December, and those due on 1 January move to 2 January. Real trees can be left out for collection on 11 and 12 January.', '2026-12-05T16:00:00+00:00', 0, '2026-12-05 16:05:55'),
 (5, 2, 'dcc-roads-2026-11-23-a386', 'A386 Tavistock to Okehampton: overnight closures for resurfacing', 'https://www.devon.gov.uk/news/a386-resurfacing', 'Highways', 'The A386 between Mary Tavy and Sourton will close overnight, 8pm to 6am, from 30 November for nine nights while the carriageway is resurfaced. A signed diversion runs via the A30 and A390.', '2026-11-23T11:00:00+00:00', 1, '2026-11-23 11:20:04'),
 (6, 2, 'dcc-roads-2026-11-30-gunnislake-bridge', 'Gunnislake New Bridge: temporary traffic lights', 'https://www.devon.gov.uk/news/gunnislake-new-bridge-lights', 'Highways', 'Temporary traffic lights will control the A390 across Gunnislake New Bridge from 7 to 18 December while Cornwall Council repairs the parapet. Expect delays at peak times.', '2026-11-30T14:30:00+00:00', 0, '2026-11-30 14:45:19'),
 (7, 2, 'dcc-roads-2026-12-03-gritting', 'Gritting routes ready as temperatures fall', 'https://www.devon.gov.uk/news/gritting-2026', 'Highways', 'Devon''s gritters treated 1,900 miles of priority routes overnight, including the A386 over Dartmoor and the B3357 Tavistock to Two Bridges road.', '2026-12-03T07:45:00+00:00', 0, '2026-12-03 08:02:33'),
 (8, 3, 'dnpa-2026-11-21-pony-drift', 'Pony drift results and grazing update', 'https://www.dartmoor.gov.uk/news/pony-drift-2026', 'Dartmoor National Park Authority', 'Commoners gathered 412 ponies in this autumn''s drifts. The Authority thanks volunteers and reminds visitors not to feed ponies near the B3357.', '2026-11-21T09:30:00+00:00', 1, '2026-11-21 10:01:12'),
 (9, 3, 'dnpa-2026-12-01-wild-camping', 'Backpack camping map updated for winter', 'https://www.dartmoor.gov.uk/news/backpack-camping-winter', 'Dartmoor National Park Authority', 'The permissive backpack camping map has been updated. Areas near Merrivale and Princetown remain open; camping near Burrator Reservoir is not permitted.', '2026-12-01T10:00:00+00:00', 0, '2026-12-01 10:15:48'),
 (10, 4, 'ea-tamar-2026-11-28-alert', 'Flood alert: River Tamar at Gunnislake', 'https://check-for-flooding.service.gov.uk/target-area/114WAFTAM', 'Environment Agency', 'Flood alert in force. River levels are rising at the Gunnislake gauge following heavy rain on Dartmoor. Flooding of low-lying land and roads is possible, particularly at Morwellham Quay and Weir Head.', '2026-11-28T06:12:00+00:00', 1, '2026-11-28 06:30:07'),
 (11, 4, 'ea-tamar-2026-11-28-warning', 'Flood warning: River Tamar at Gunnislake', 'https://check-for-flooding.service.gov.uk/target-area/114WAFTAM', 'Environment Agency', 'Flood warning in force. Flooding is expected at Weir Head and on the road to Morwellham Quay. The river at Gunnislake peaked at 3.42m at 15:00.', '2026-11-28T13:40:00+00:00', 0, '2026-11-28 14:00:21'),
 (12, 4, 'ea-tamar-2026-11-30-removed', 'Flood warning removed: River Tamar at Gunnislake', 'https://check-for-flooding.service.gov.uk/target-area/114WAFTAM', 'Environment Agency', 'The flood warning has been removed. River levels at Gunnislake are falling and are expected to stay below flood level.', '2026-11-30T09:05:00+00:00', 0, '2026-11-30 09:30:44'),
 (13, 5, 'tpm-2026-11-24-christmas-market', 'Victorian Christmas market returns on 13 December', 'https://www.tavistockpanniermarket.co.uk/victorian-christmas-market', 'Market Office', 'Over 60 stalls, carol singers from Tavistock Community Choir and roast chestnuts in Bedford Square from 10am to 6pm on Sunday 13 December.', '2026-11-24T15:00:00+00:00', 1, '2026-11-24 15:18:09'),
 (14, 5, 'tpm-2026-12-04-stallholders', 'New stallholders for the Friday craft market', 'https://www.tavistockpanniermarket.co.uk/new-stallholders', 'Market Office', 'Six new stallholders join the Friday craft market in December, including a Lamerton cider maker and a Milton Abbot weaver.', '2026-12-04T11:00:00+00:00', 0, '2026-12-04 11:10:37'),
 (15, 6, 'trfc-2026-11-22-report', 'Match report: Tavistock 24-17 Ivybridge', 'https://www.tavistockrfc.co.uk/reports/ivybridge-h', 'Club Press Officer', 'Two late tries from winger Josh Mudge sealed a home win over Ivybridge at Sandy Park Lane.', '2026-11-22T18:30:00+00:00', 1, '2026-11-22 19:02:51'),
 (16, 6, 'trfc-2026-11-29-postponed', 'Away game at Launceston postponed', 'https://www.tavistockrfc.co.uk/news/launceston-postponed', 'Club Press Officer', 'Saturday''s fixture at Launceston is postponed because of a waterlogged pitch. A new date will be announced.', '2026-11-28T16:00:00+00:00', 0, '2026-11-28 16:20:00'),
 (17, 6, 'trfc-2026-12-06-report', 'Match report: Tavistock 10-31 Truro', 'https://www.tavistockrfc.co.uk/reports/truro-h', 'Club Press Officer', 'A strong Truro side pulled away in the second half at Sandy Park Lane.', '2026-12-06T17:45:00+00:00', 0, '2026-12-06 18:01:09'),
 (18, 7, 'tvnl-2026-11-25-orchards', 'Orchard grants open for Tamar Valley growers', 'https://www.tamarvalleyaonb.org.uk/news/orchard-grants', 'Tamar Valley National Landscape', 'Grants of up to £2,500 are open for restoring traditional orchards in the Tamar Valley. Applications close on 31 January 2027.', '2026-11-25T10:00:00+00:00', 0, '2026-11-25 10:12:00'),
 (19, 7, 'tvnl-2026-12-02-morwellham', 'Morwellham Quay path reopens after flood repairs', 'https://www.tamarvalleyaonb.org.uk/news/morwellham-path', 'Tamar Valley National Landscape', 'The riverside path at Morwellham Quay has reopened after repairs to damage from last week''s flooding.', '2026-12-02T12:00:00+00:00', 0, '2026-12-02 12:25:30');
COMMIT;
