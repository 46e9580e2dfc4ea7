import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterGraph, clusterSize, clusterStatus, clusterTitle, drillStatus, scopeLegend, strongEdges, styleClusters, type ClusterSummary } from '../src/graph/clusters';

function summary(clusters: number, edges: [number, number, number][]): ClusterSummary {
  return {
    notes: clusters * 10, links: 0, problems: 3, wanted: 1,
    scopes: [{ scope: 'a', notes: clusters * 5, agent: true, memoryOff: false }, { scope: 'b', notes: clusters * 5, agent: false, memoryOff: false }],
    clusters: Array.from({ length: clusters }, (_, i) => ({ id: `cluster:${i % 2 ? 'b' : 'a'}/memory/x/w${i}`, kind: 'notes', scope: i % 2 ? 'b' : 'a',
      label: `${i % 2 ? 'b' : 'a'} · w${i}-*`, folder: 'memory/x', notes: 100 - i, links: 0, outside: 0, problems: 0, hubs: [] })),
    edgeSources: edges.map((e) => e[0]), edgeTargets: edges.map((e) => e[1]), edgeLinks: edges.map((e) => e[2]),
  };
}

test('a summary draws a node per scope and cluster, each cluster tied to its scope, labelled with its notes', () => {
  const d = clusterGraph(summary(4, [[0, 1, 7], [1, 2, 1]]));
  assert.deepEqual(d.ids, ['scope:a', 'scope:b', 'cluster:a/memory/x/w0', 'cluster:b/memory/x/w1', 'cluster:a/memory/x/w2', 'cluster:b/memory/x/w3']);
  assert.equal(d.g.getNodeAttribute('cluster:a/memory/x/w0', 'label'), 'w0-* · 100');
  assert.equal(d.g.getNodeAttribute('scope:a', 'label'), 'a · 20 notes');
  assert.ok(d.g.hasEdge('scope:a', 'cluster:a/memory/x/w0') && d.g.hasEdge('scope:b', 'cluster:b/memory/x/w3'));
  assert.equal(d.g.edges('cluster:a/memory/x/w0', 'cluster:b/memory/x/w1').length, 1);
  assert.equal(d.source.length, d.g.size);  // the layout's links are the drawing's
  assert.ok(d.weight[d.source.length - 2] > d.weight[d.source.length - 1], 'a stronger link pulls harder');
  assert.equal(d.hidden, 0);
});

test('past the cap the largest clusters are drawn and the rest counted, their links left out', () => {
  const d = clusterGraph(summary(5, [[0, 4, 3], [0, 1, 2]]), 3);
  assert.equal(d.shown, 3);
  assert.equal(d.hidden, 2);
  assert.equal(d.hiddenNotes, 96 + 97);
  assert.ok(!d.g.hasNode('cluster:a/memory/x/w4'));
  assert.match(clusterStatus(summary(5, []), d), /50 notes in 2 scopes and 3 clusters, 0 links, 3 problem links; 2 more clusters of 193 notes not drawn/);
});

test('each cluster keeps its strongest links; the weak ones between well-linked clusters go', () => {
  // Cluster 0 is linked to 1..6 with falling weight; 5 and 6 also to each other, weakly.
  const edges: [number, number, number][] = [[0, 1, 60], [0, 2, 50], [0, 3, 40], [0, 4, 30], [0, 5, 20], [0, 6, 10], [5, 6, 1]];
  const s = summary(7, edges);
  // One each: every cluster's strongest (0-1 for 0 and 1, 0-k for each k); 5-6 is neither's.
  assert.deepEqual(strongEdges(s, () => true, 1, 0), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(strongEdges(s, () => true, 2, 0), [0, 1, 2, 3, 4, 5, 6]);  // two each: 5-6 is 5's and 6's second
  assert.deepEqual(strongEdges(s, () => true, 0, 2), [0, 1]);  // the strongest overall alone
  assert.deepEqual(strongEdges(s, (i) => i < 3, 4, 10), [0, 1]);
});

test('sizes grow with notes as area, names and status lines say what is left out', () => {
  assert.equal(clusterSize(0, 100), 4);
  assert.equal(clusterSize(100, 100), 28);
  assert.ok(clusterSize(25, 100) < clusterSize(100, 100) / 2 + 4);
  assert.equal(clusterTitle('scope:alice', null), 'Scope alice');
  assert.equal(clusterTitle('cluster:alice/memory/alice/deploy', { kind: 'cluster', scope: 'alice', name: 'deploy-*' }), 'alice · deploy-*');
  assert.equal(drillStatus('alice · deploy-*', 1500, 11000), 'alice · deploy-*: the 1,500 best-linked of 11,000 notes, 9,500 more not drawn');
  assert.equal(drillStatus('x', 12, 12), 'x: 12 notes');
});

test('each scope has its own palette colour, its clusters share it, and the legend names them largest first', () => {
  const s = summary(4, []);
  s.scopes[1].notes = 30;
  const d = clusterGraph(s);
  styleClusters(d.g);
  const colour = (id: string) => String(d.g.getNodeAttribute(id, 'color'));
  assert.match(colour('scope:a'), /^#[0-9a-f]{6}$/);
  assert.notEqual(colour('scope:a'), colour('scope:b'));
  assert.equal(colour('cluster:a/memory/x/w0'), colour('scope:a'));
  assert.equal(colour('cluster:b/memory/x/w1'), colour('scope:b'));
  assert.deepEqual(scopeLegend(d.g).map((l) => [l.name, l.size, l.colour]), [['b', 30, colour('scope:b')], ['a', 20, colour('scope:a')]]);
});

test('a summary of 200,000 cluster links draws (no spread of them into Math.max)', () => {
  const edges: [number, number, number][] = Array.from({ length: 200_000 }, (_, i) => [i % 7, 7 + (i % 13), 1 + (i % 5)]);
  const d = clusterGraph(summary(20, edges));
  assert.ok(d.g.size > 0);
});
