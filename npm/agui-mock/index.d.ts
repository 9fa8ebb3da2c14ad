/** The platforms a binary is published for, as Node names them: `${process.platform}-${process.arch}`. */
export declare const PLATFORMS: readonly string[];
/** The path of the agui-mock binary for this platform; throws, saying what to do, when there is none. */
export declare function binaryPath(): string;
