/**
 * The three server-compaction surfaces (docs/checkpoints.md#surfaces): the identity recorded in the
 * checkpoint always names the official endpoint; only the transport may be redirected, and only to loopback http.
 */
import type { ResponsesApi, TargetModel } from "./responses.js";

export type Provider = "openai" | "azure" | "codex";
export type Surface = "openai_api" | "azure_openai" | "chatgpt_codex";

export interface Identity {
  kind: "supported";
  surface: Surface;
  protocol: "responses_compact_v1" | "codex_compaction_trigger_v2";
  endpoint: string;
  model: string;
  deployment?: string;
  api: ResponsesApi;
}

export interface RouteOptions {
  provider: Provider;
  model: string;
  azureResource?: string;
  azureDeployment?: string;
}

export class RouteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RouteError";
  }
}

export function identityFor(o: RouteOptions): Identity {
  if (!/^[\w.:-]{1,100}$/.test(o.model)) throw new RouteError(`model ${JSON.stringify(o.model)} is not a model id`);
  switch (o.provider) {
    case "openai":
      return {
        kind: "supported",
        surface: "openai_api",
        protocol: "responses_compact_v1",
        endpoint: "https://api.openai.com/v1",
        model: o.model,
        api: "openai-responses",
      };
    case "azure": {
      if (!o.azureResource || !/^[a-z0-9][a-z0-9-]{0,62}$/i.test(o.azureResource))
        throw new RouteError("Azure needs --azure-resource (the resource name in https://<resource>.openai.azure.com)");
      const deployment = o.azureDeployment || o.model;
      return {
        kind: "supported",
        surface: "azure_openai",
        protocol: "responses_compact_v1",
        endpoint: `https://${o.azureResource}.openai.azure.com/openai/v1`,
        model: o.model,
        deployment,
        api: "azure-openai-responses",
      };
    }
    case "codex":
      return {
        kind: "supported",
        surface: "chatgpt_codex",
        protocol: "codex_compaction_trigger_v2",
        endpoint: "https://chatgpt.com/backend-api",
        model: o.model,
        api: "openai-codex-responses",
      };
  }
}

/** The model as pi-ai would describe it for this surface (what the serializer needs). */
export function targetModel(identity: Identity): TargetModel {
  const provider =
    identity.surface === "openai_api"
      ? "openai"
      : identity.surface === "azure_openai"
        ? "azure-openai-responses"
        : "openai-codex";
  // The GPT-5 and o-series models reason; pi-ai marks them so (it decides the system item's role, unused here).
  const reasoning = /^(gpt-5|o\d)/.test(identity.model);
  return {
    id: identity.model,
    provider,
    api: identity.api,
    reasoning,
    input: ["text", "image"],
    thinkingLevelMap: reasoning ? { off: null } : {},
  };
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);

/**
 * Where requests actually go: the identity's endpoint, or an override that is https on the same official host, or
 * plain http on loopback (the tests' mock server). Anything else is refused.
 */
export function transportBase(identity: Identity, override?: string): string {
  if (!override) return identity.endpoint;
  let url: URL;
  try {
    url = new URL(override);
  } catch {
    throw new RouteError(`--base-url ${JSON.stringify(override)} is not a URL`);
  }
  if (url.username || url.password) throw new RouteError("--base-url must not carry credentials");
  const official = new URL(identity.endpoint).hostname;
  const ok =
    (url.protocol === "https:" && url.hostname === official) ||
    (url.protocol === "http:" && LOOPBACK.has(url.hostname));
  if (!ok)
    throw new RouteError(
      `--base-url ${url.origin} is refused: use https://${official} or plain http on 127.0.0.1, localhost or [::1]`,
    );
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}
