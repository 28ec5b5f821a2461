#!/usr/bin/env node
// Peer check: ask the official Hugging Face JS client (@huggingface/hub, version pinned in
// package.json) for a repo's safetensors parameter counts, so tests and benchmarks can compare them
// with ModelAnalyzer's.
//
// Usage: node safetensors_params.mjs HUB_URL REPO_ID [REVISION]
//
// Prints ONE line of JSON to stdout:
//   {"sharded":bool,"parameterCount":{"BF16":n,...},"requests":n,"bytes":n,"wall_ms":x}
//
// - parameterCount: hf.js's per-dtype counts, unchanged. JSON numbers. hf.js adds them up as JS
//   numbers, so a count above 2^53 - 1 would already have lost precision in hf.js. Such a count is
//   printed as a decimal string so that a caller can spot it. Real models stay far below 2^53.
// - requests: every HTTP request sent, one per redirect hop. The wrapper follows redirects itself
//   (redirect: "manual"), so a resolve that answers 302 to the CDN counts as 2.
// - bytes: response-body bytes that were read, from every hop. This is counted as hf.js pulls from the
//   stream. Bodies that hf.js never reads are not counted: the 1-byte `Range: bytes=0-0` probe, HEAD
//   responses and the bodies of 3xx hops, which the wrapper cancels. Headers are not counted either.
// - wall_ms: time spent in parseSafetensorsMetadata only. Node's start-up and module loading are left
//   out.
//
// It never sends a token: no accessToken is passed, and hf.js reads none from the environment for this
// call.
// Exit status: 0 on success, 2 on bad usage, 1 on any failure, with one line on stderr.

import { parseSafetensorsMetadata } from "@huggingface/hub";

const MAX_REDIRECTS = 20; // the Fetch standard's limit, as undici's own redirect following uses

function fail(message, code = 1) {
  process.stderr.write(`safetensors_params: ${String(message).replace(/\s+/g, " ").trim()}\n`, () =>
    process.exit(code),
  );
}

const [hubUrlArg, repoId, revision] = process.argv.slice(2);
if (!hubUrlArg || !repoId || process.argv.length > 5) {
  fail("usage: node safetensors_params.mjs HUB_URL REPO_ID [REVISION]", 2);
} else {
  main(hubUrlArg.replace(/\/+$/, ""), repoId, revision).catch((err) => {
    if (!(err instanceof Error)) {
      fail(err);
      return;
    }
    // undici's "fetch failed" keeps the reason (ECONNREFUSED, ...) in err.cause
    const cause = err.cause instanceof Error ? ` (${err.cause.code ?? err.cause.name}: ${err.cause.message})` : "";
    fail(`${err.name}: ${err.message}${cause}`);
  });
}

function makeCountingFetch(stats) {
  // Wraps a response body so that only the bytes the consumer actually pulls are counted
  // (highWaterMark 0: nothing is read ahead of demand).
  function countedBody(body) {
    const reader = body.getReader();
    return new ReadableStream(
      {
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            return;
          }
          stats.bytes += value.byteLength;
          controller.enqueue(value);
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      },
      { highWaterMark: 0 },
    );
  }

  function wrap(resp, redirected) {
    const wrapped = new Response(resp.body ? countedBody(resp.body) : null, {
      status: resp.status,
      statusText: resp.statusText,
      headers: resp.headers,
    });
    // hf.js reads resp.url (fileDownloadInfo compares its origin with the hub's). Keep the real ones.
    Object.defineProperty(wrapped, "url", { value: resp.url });
    Object.defineProperty(wrapped, "redirected", { value: redirected });
    return wrapped;
  }

  return async function countingFetch(input, init = {}) {
    if (input instanceof Request) {
      // hf.js passes (string | URL, init). A Request is handled too, except for a request body
      // (hf.js sends none in this code path).
      init = { method: input.method, headers: input.headers, signal: input.signal, ...init };
      input = input.url;
    }
    if (init.redirect && init.redirect !== "follow") {
      stats.requests += 1;
      return wrap(await fetch(input, init), false);
    }
    let url = new URL(String(input));
    let method = (init.method ?? "GET").toUpperCase();
    let headers = new Headers(init.headers);
    let body = init.body;
    for (let hop = 0; ; hop++) {
      stats.requests += 1;
      const resp = await fetch(url, { ...init, method, headers, body, redirect: "manual" });
      const location = resp.headers.get("location");
      if (![301, 302, 303, 307, 308].includes(resp.status) || location === null) {
        return wrap(resp, hop > 0);
      }
      await resp.body?.cancel();
      if (hop + 1 > MAX_REDIRECTS) {
        throw new TypeError(`fetch failed: more than ${MAX_REDIRECTS} redirects from ${input}`);
      }
      const next = new URL(location, url);
      // Same rules as the Fetch standard's redirect step, which undici's fetch follows.
      if (resp.status === 303 ? method !== "HEAD" : (resp.status === 301 || resp.status === 302) && method === "POST") {
        method = "GET";
        body = undefined;
        for (const h of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) {
          headers.delete(h);
        }
      }
      if (next.origin !== url.origin) {
        headers.delete("authorization");
        headers.delete("cookie");
        headers.delete("proxy-authorization");
      }
      url = next;
    }
  };
}

async function main(hubUrl, repo, rev) {
  const stats = { requests: 0, bytes: 0 };
  const countingFetch = makeCountingFetch(stats);

  const start = performance.now();
  const result = await parseSafetensorsMetadata({
    repo,
    ...(rev ? { revision: rev } : {}),
    hubUrl,
    computeParametersCount: true,
    fetch: countingFetch,
  });
  const wallMs = performance.now() - start;

  const parameterCount = {};
  for (const [dtype, n] of Object.entries(result.parameterCount ?? {})) {
    parameterCount[dtype] = Number.isSafeInteger(n) ? n : String(n);
  }
  const line = JSON.stringify({
    sharded: result.sharded,
    parameterCount,
    requests: stats.requests,
    bytes: stats.bytes,
    wall_ms: Math.round(wallMs * 1000) / 1000,
  });
  // Bodies hf.js leaves unread (the bytes=0-0 probes) keep sockets open. Exit once the line is out.
  process.stdout.write(line + "\n", () => process.exit(0));
}
