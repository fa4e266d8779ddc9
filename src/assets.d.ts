// Static assets imported with `{ type: 'file' }`: the import is a path, embedded by `bun build --compile`.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const path: string
  export default path
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const path: string
  export default path
}
