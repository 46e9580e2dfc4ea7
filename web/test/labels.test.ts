import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseLabels, intersects, labelBox, labelPriority, TextWidths, type LabelBox } from '../src/labels';

// A label of `chars` characters at 7 px each, of a 14 px font, for a node of size 5 at (x, y).
const at = (key: string, x: number, y: number, priority: number, chars = 10, always = false): LabelBox =>
  ({ key, priority, always, ...labelBox(x, y, 5, chars * 7, 14) });

const cases: { name: string; boxes: LabelBox[]; kept: string[] }[] = [
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
];

for (const c of cases) {
  test(`chooseLabels: ${c.name}`, () => {
    assert.deepEqual([...chooseLabels(c.boxes)].sort(), c.kept);
  });
}

test('chooseLabels: no two kept boxes meet, on a random crowd, and the best is always kept', () => {
  let seed = 7;
  const random = () => { seed = (seed * 16807) % 2147483647; return seed / 2147483647; };
  const boxes = [...Array(3000)].map((_, i) => at(`n${i}`, random() * 1400, random() * 860, random() * 100, 3 + Math.floor(random() * 30)));
  boxes.push(at('selected', 700, 430, 0, 20, true));
  const kept = chooseLabels(boxes);
  const chosen = boxes.filter((b) => kept.has(b.key));
  for (let i = 0; i < chosen.length; i++) {
    for (let j = i + 1; j < chosen.length; j++) {
      assert.ok(!intersects(chosen[i], chosen[j]) || chosen[i].always || chosen[j].always, `${chosen[i].key} meets ${chosen[j].key}`);
    }
  }
  assert.ok(kept.has('selected'));
  const best = boxes.filter((b) => !b.always && !intersects(b, boxes[boxes.length - 1], 2)).sort((a, b) => b.priority - a.priority)[0];
  assert.ok(kept.has(best.key), 'the highest priority clear of the selection is kept');
  assert.ok(kept.size > 50 && kept.size < 3000, `some kept and some dropped (${kept.size})`);
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

test('TextWidths: measures a string once per font, again after the font changes', () => {
  const asked: string[] = [];
  const widths = new TextWidths((text, font) => { asked.push(`${font}:${text}`); return text.length * (font === 'a' ? 7 : 8); }, 3);
  assert.equal(widths.width('abc', 'a'), 21);
  assert.equal(widths.width('abc', 'a'), 21);
  assert.deepEqual(asked, ['a:abc']);
  assert.equal(widths.width('abc', 'b'), 24);
  assert.equal(asked.length, 2);
  for (const t of ['x', 'y', 'z', 'w']) widths.width(t, 'b');
  assert.equal(widths.width('abc', 'b'), 24, 'still right after the cache was cleared at its limit');
  assert.equal(asked.length, 7);
});
