// The part of autocannon 9's programmatic API the benchmark uses (the package ships no types).
declare module "autocannon" {
  type RequestParams = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
  };

  type Request = RequestParams & {
    setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
  };

  type Options = RequestParams & {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    timeout?: number;
    title?: string;
    requests?: Request[];
  };

  type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
  };

  type Result = {
    title?: string;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    "2xx": number;
  };

  function autocannon(options: Options): Promise<Result>;
  namespace autocannon {
    export type { Options, Result, Request, RequestParams };
  }
  export default autocannon;
}
