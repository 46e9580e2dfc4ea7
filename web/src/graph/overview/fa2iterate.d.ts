// graphology-layout-forceatlas2's one-iteration step (CommonJS, untyped): the worker drives it
// over its own matrices so it can test convergence between iterations.
declare module 'graphology-layout-forceatlas2/iterate.js' {
  export default function iterate(settings: Record<string, number | boolean>, nodes: Float32Array, edges: Float32Array): Record<string, never>;
}
