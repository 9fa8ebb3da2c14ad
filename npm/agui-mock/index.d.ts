/** The platforms a binary is published for, as Node names them: `${process.platform}-${process.arch}`. */
export declare const PLATFORMS: readonly string[];
/**
 * The path of the agui-mock binary for a platform, this one unless given; throws, saying
 * what to do, when there is none. resolve finds a module as require.resolve does.
 */
export declare function binaryPath(options?: {
  platform?: string;
  arch?: string;
  resolve?: (id: string) => string;
}): string;
