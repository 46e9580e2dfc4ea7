import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseLabels, intersects, labelBox, labelPlaces, labelPriority, TextWidths, type Box, type LabelCandidate } from '../src/labels';

// A label of `chars` characters at 7 px each, of a 14 px font, for a node of size 5 at (x, y),
// that may only go right of its node (`at`) or anywhere around it (`around`).
const at = (key: string, x: number, y: number, priority: number, chars = 10, always = false): LabelCandidate & Box =>
  ({ key, priority, always, places: [labelBox(x, y, 5, chars * 7, 14)], ...labelBox(x, y, 5, chars * 7, 14) });
const around = (key: string, x: number, y: number, priority: number, chars = 10): LabelCandidate =>
  ({ key, priority, places: labelPlaces(x, y, 5, chars * 7, 14) });

const cases: { name: string; boxes: LabelCandidate[]; kept: string[] }[] = [
  { name: 'an overlapping pair keeps the higher priority', boxes: [at('low', 0, 0, 1), at('high', 20, 4, 2)], kept: ['high'] },
  { name: 'the order boxes come in does not matter', boxes: [at('high', 20, 4, 2), at('low', 0, 0, 1)], kept: ['high'] },
  { name: 'equal priorities: the first key wins, deterministically', boxes: [at('b', 0, 0, 1), at('a', 5, 0, 1)], kept: ['a'] },
  { name: 'far apart: both kept', boxes: [at('a', 0, 0, 1), at('b', 500, 300, 2)], kept: ['a', 'b'] },
  { name: 'side by side on one row, clear of each other', boxes: [at('a', 0, 0, 1), at('b', 90, 0, 1)], kept: ['a', 'b'] },
  { name: 'one above the other, a line apart', boxes: [at('a', 0, 0, 1), at('b', 0, 20, 1)], kept: ['a', 'b'] },
  { name: 'closer than the gap counts as touching', boxes: [at('a', 0, 0, 2), at('b', 0, 16.5, 1)], kept: ['a'] },
  { name: 'the selected node is kept over a higher priority', boxes: [at('big', 0, 0, 100), at('sel', 10, 2, 0, 10, true)], kept: ['sel'] },
  { name: 'the selected node is kept even where everything else is taken',
    boxes: [at('a', 0, 0, 9), at('b', 0, 18, 9), at('sel', 0, 9, 0, 5, true)], kept: ['sel'] },
  { name: 'a long label reaches its far neighbour', boxes: [at('long', 0, 0, 2, 60), at('far', 400, 3, 1)], kept: ['long'] },
  { name: 'a short label does not', boxes: [at('short', 0, 0, 2, 8), at('far', 400, 3, 1)], kept: ['far', 'short'] },
  { name: 'a dropped label does not block others', boxes: [at('a', 0, 0, 3), at('b', 60, 0, 2), at('c', 120, 0, 1)], kept: ['a', 'c'] },
  { name: 'boxes across many grid cells', boxes: [at('wide', -300, 0, 2, 120), at('under', 200, 8, 1), at('clear', 200, 40, 1)], kept: ['clear', 'wide'] },
  { name: 'negative coordinates (labels half off the drawing)', boxes: [at('a', -50, -8, 2), at('b', -40, -4, 1)], kept: ['a'] },
  { name: 'nothing to place', boxes: [], kept: [] },
  { name: 'no place at all', boxes: [{ key: 'a', priority: 1, places: [] }, { key: 'b', priority: 1, places: [null, null], always: true }], kept: [] },
];

for (const c of cases) {
  test(`chooseLabels: ${c.name}`, () => {
    const chosen = chooseLabels(c.boxes);
    assert.deepEqual([...chosen.keys()].sort(), c.kept);
    assert.ok([...chosen.values()].every((i) => i === 0), 'only the one place offered');
  });
}

const moved: { name: string; boxes: LabelCandidate[]; places: Record<string, number> }[] = [
  { name: 'right when it is free', boxes: [around('a', 0, 0, 1), around('b', 300, 0, 1)], places: { a: 0, b: 0 } },
  { name: 'left when the right is taken', boxes: [around('big', 20, 0, 2), around('small', 0, 0, 1, 5)], places: { big: 0, small: 1 } },
  { name: 'below when both sides are taken',
    boxes: [around('r', 15, 0, 3), around('l', -100, 0, 3), around('mid', 0, 0, 1, 4)], places: { r: 0, l: 0, mid: 2 } },
  { name: 'above when below is taken too',
    boxes: [around('r', 15, 0, 3), around('l', -100, 0, 3), around('d', -20, 22, 3), around('mid', 0, 0, 1, 4)],
    places: { r: 0, l: 0, d: 0, mid: 3 } },
  { name: 'an agent hemmed in on all four sides goes a line up beside its node',
    boxes: [around('r', 15, 0, 3), around('l', -100, 0, 3), at('d', -16, 22, 3, 2), at('u', -16, -22, 3, 2),
      { key: 'agent', priority: 2, places: labelPlaces(0, 0, 5, 4 * 7, 14, true) }],
    places: { r: 0, l: 0, d: 0, u: 0, agent: 4 } },
  { name: 'without the farther places it is left out',
    boxes: [around('r', 15, 0, 3), around('l', -100, 0, 3), at('d', -16, 22, 3, 2), at('u', -16, -22, 3, 2),
      { key: 'plain', priority: 2, places: labelPlaces(0, 0, 5, 4 * 7, 14) }],
    places: { r: 0, l: 0, d: 0, u: 0 } },
];
// Places off the drawing come as nulls: the index chosen still counts them.
const offRight = (c: LabelCandidate): LabelCandidate => ({ ...c, places: [null, ...c.places.slice(1)] });
moved.push({ name: 'left when the right is off the drawing', boxes: [offRight(around('edge', 0, 0, 1))], places: { edge: 1 } });
moved.push({ name: 'a selected label goes where it fits even if that is not first',
  boxes: [around('r', 15, 0, 3), { ...offRight(around('sel', 0, 0, 0, 4)), always: true }], places: { sel: 1, r: 0 } });
for (const c of moved) {
  test(`chooseLabels moves a label: ${c.name}`, () => {
    assert.deepEqual(Object.fromEntries(chooseLabels(c.boxes)), c.places);
  });
}

const disc = (x: number, y: number, r: number): Box => ({ left: x - r, top: y - r, right: x + r, bottom: y + r });
const avoiding: { name: string; boxes: LabelCandidate[]; discs: Box[]; places: Record<string, number> }[] = [
  { name: 'a label steps off a node drawn where it would go', boxes: [around('a', 0, 0, 1)], discs: [disc(40, 0, 4)], places: { a: 1 } },
  { name: 'its own disc is no obstacle', boxes: [around('a', 0, 0, 1)], discs: [disc(0, 0, 5)], places: { a: 0 } },
  { name: 'nodes all around: over a node rather than not at all', boxes: [around('a', 0, 0, 1)],
    discs: [disc(40, 0, 4), disc(-40, 0, 4), disc(0, 16, 4), disc(0, -16, 4)], places: { a: 0 } },
  { name: 'another label still counts first: over a node, not over a label',
    boxes: [around('big', 20, 0, 2), around('small', 0, 0, 1, 5)], discs: [disc(-20, 0, 4), disc(0, 14, 3), disc(0, -14, 3)], places: { big: 0, small: 1 } },
];
for (const c of avoiding) {
  test(`chooseLabels keeps labels off nodes: ${c.name}`, () => {
    assert.deepEqual(Object.fromEntries(chooseLabels(c.boxes, 2, c.discs)), c.places);
  });
}

test('labelPlaces: right, left, below, above the node, none over its disc', () => {
  const [right, left, below, above] = labelPlaces(100, 100, 6, 50, 14);
  assert.ok(right.left > 106 && left.right < 94, 'beside the disc');
  assert.ok(below.top > 106 && above.bottom < 94, 'clear of the disc above and below');
  assert.equal(below.left + 25, 100, 'centred under the node');
  for (const p of [right, left, below, above]) {
    assert.equal(p.right - p.left, 50);
    assert.ok(p.top < p.baseline && p.baseline < p.bottom);
  }
});

test('chooseLabels: no two kept boxes meet, on a random crowd, and the best is always kept', () => {
  let seed = 7;
  const random = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
  const boxes = [...Array(3000)].map((_, i) => at(`n${i}`, random() * 1400, random() * 860, random() * 100, 3 + Math.floor(random() * 30)));
  boxes.push(at('selected', 700, 430, 0, 20, true));
  const kept = chooseLabels(boxes);
  const chosen = boxes.filter((b) => kept.has(b.key));
  assert.ok(chosen.every((b) => kept.get(b.key) === 0));
  for (let i = 0; i < chosen.length; i++) {
    for (let j = i + 1; j < chosen.length; j++) {
      assert.ok(!intersects(chosen[i], chosen[j]) || chosen[i].always || chosen[j].always, `${chosen[i].key} meets ${chosen[j].key}`);
    }
  }
  assert.ok(kept.has('selected'));
  // With every place around each node offered, more fit, still none over another.
  const anywhere = boxes.map((b) => around(b.key, b.left - 8, b.top + 12.6 - 14 / 3, b.priority, (b.right - b.left) / 7));
  const placed = chooseLabels(anywhere);
  const drawn = anywhere.filter((c) => placed.has(c.key)).map((c) => c.places[placed.get(c.key) ?? 0] as Box);
  for (let i = 0; i < drawn.length; i++) for (let j = i + 1; j < drawn.length; j++) assert.ok(!intersects(drawn[i], drawn[j]));
  assert.ok(placed.size > kept.size - 1, `${placed.size} placed around, ${kept.size} right of the node only`);
  const best = boxes.filter((b) => !b.always && !intersects(b, boxes[boxes.length - 1], 2)).sort((a, b) => b.priority - a.priority)[0];
  assert.ok(kept.has(best.key), 'the highest priority clear of the selection is kept');
  assert.ok(kept.size > 50 && kept.size < 3000, `some kept and some dropped (${kept.size})`);
});

test('labelPlaces: farther adds four places a line up and down on either side', () => {
  const near = labelPlaces(100, 100, 6, 50, 14);
  const all = labelPlaces(100, 100, 6, 50, 14, true);
  assert.deepEqual(all.slice(0, 4), near);
  assert.equal(all.length, 8);
  const [rightUp, rightDown, leftUp, leftDown] = all.slice(4);
  assert.equal(rightUp.left, near[0].left);
  assert.equal(leftDown.left, near[1].left);
  assert.ok(rightUp.bottom <= near[0].top && rightDown.top >= near[0].bottom, 'a line above and below, not over it');
  assert.ok(leftUp.bottom <= near[1].top && leftDown.top >= near[1].bottom);
});

test('labelBox: where sigma draws the text, right of the disc, around the baseline', () => {
  const b = labelBox(100, 50, 6, 80, 14);
  assert.equal(b.left, 109);
  assert.equal(b.right, 189);
  assert.ok(b.top < 50 - 14 / 3 && b.bottom > 50 + 14 / 3, 'the box covers the glyphs above and below the baseline');
  assert.ok(b.bottom - b.top >= 14 && b.bottom - b.top <= 18, 'about a line high');
});

test('intersects: edges that touch only meet with a gap', () => {
  const a = { left: 0, top: 0, right: 10, bottom: 10 };
  assert.ok(!intersects(a, { left: 10, top: 0, right: 20, bottom: 10 }));
  assert.ok(intersects(a, { left: 10, top: 0, right: 20, bottom: 10 }, 1));
  assert.ok(intersects(a, { left: 5, top: 5, right: 6, bottom: 6 }), 'one inside the other');
});

const rank = { selected: false, neighbour: false, agent: false, problem: false, size: 5, degree: 3 };
const ranked: [string, Partial<typeof rank>, Partial<typeof rank>][] = [
  ['selected over a neighbour', { selected: true }, { neighbour: true, size: 20 }],
  ['a neighbour over an agent', { neighbour: true }, { agent: true, size: 20 }],
  ['an agent over a problem', { agent: true }, { problem: true, size: 20 }],
  ['a problem over a big plain node', { problem: true, size: 2 }, { size: 20, degree: 500 }],
  ['bigger over smaller', { size: 9 }, { size: 8, degree: 9000 }],
  ['same size: more links first', { degree: 4 }, { degree: 3 }],
];
for (const [name, higher, lower] of ranked) {
  test(`labelPriority: ${name}`, () => {
    assert.ok(labelPriority({ ...rank, ...higher }) > labelPriority({ ...rank, ...lower }));
  });
}

test('TextWidths: each character measured once per font, summed, with half a pixel to spare', () => {
  const asked: string[] = [];
  const widths = new TextWidths((text, font) => { asked.push(`${font}:${text}`); return text.length * (font === 'a' ? 7 : 8); }, 3);
  assert.equal(widths.width('abca', 'a'), 28.5);
  assert.equal(widths.width('abca', 'a'), 28.5);
  assert.equal(widths.width('cab', 'a'), 21.5);
  assert.deepEqual(asked, ['a:a', 'a:b', 'a:c']);
  assert.equal(widths.width('abc', 'b'), 24.5, 'another font: measured again');
  assert.equal(asked.length, 6);
  for (const t of ['x', 'y', 'z', 'w']) widths.width(t, 'b');
  assert.equal(widths.width('abc', 'b'), 24.5, 'still right after the cache of strings was cleared at its limit');
  assert.equal(asked.length, 10);
  assert.equal(widths.width('⚠ 👩‍💻', 'a'), 0.5 + 7 * '⚠ 👩‍💻'.length);
  assert.ok(asked.includes('a:👩') && asked.includes('a:💻'), 'measured by code point, not by half a surrogate pair');
});
