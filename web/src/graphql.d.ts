// The operation documents of graphql/ are bundled as text (build.mjs: the `.graphql` loader),
// so the UI sends exactly the document dashboards use and the API tests check.
declare module '*.graphql' {
  const text: string;
  export default text;
}
