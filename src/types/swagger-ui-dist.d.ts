/** swagger-ui-dist ships no types; this project uses only the folder of its built assets. */
declare module 'swagger-ui-dist' {
  export function getAbsoluteFSPath(): string;
}
