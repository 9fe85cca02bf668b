// wpapi ships no type declarations; the tests use its chainable request builder dynamically.
declare module 'wpapi' {
  // biome-ignore lint/suspicious/noExplicitAny: untyped third-party client
  const WPAPI: any;
  export default WPAPI;
}
