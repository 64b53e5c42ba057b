import type { Messages } from './i18n';

/** Customisation groups and keys of the spec ("SDK behaviour"). */
export interface Theme {
  primaryColor: string;
  secondaryColor: string;
  accentColor: string;
  backgroundColor: string;
  textColor: string;
  buttonTextColor: string;
}
export interface Landing {
  backgroundImage: string;
  logoUrl: string;
  heroMessage: string;
  tagline: string;
  getStartedButtonText: string;
  /** From the workflow's hero_image; not a spec customisation key. */
  heroImage: string;
}
export interface CameraStyle {
  idFrameColor: string;
  selfieOutlineColor: string;
  captureButtonColor: string;
}
export interface Customization {
  theme: Theme;
  landing: Landing;
  messages: Messages;
  camera: CameraStyle;
}

/** What a caller may pass: any subset of any group. */
export type CustomizationInput = {
  theme?: Partial<Theme>;
  landing?: Partial<Landing>;
  messages?: Partial<Messages>;
  camera?: Partial<CameraStyle>;
};

/** The workflow's react_native_sdk_configs / web_sdk_configs. */
export interface WorkflowSdkConfig {
  logo?: string;
  title?: string;
  tagline?: string;
  hero_image?: string;
  background_image?: string;
  colors?: { primary?: string; secondary?: string; text?: string; background?: string };
}

export const defaultTheme: Theme = {
  primaryColor: '#0b5394',
  secondaryColor: '#e8eef6',
  accentColor: '#f1a208',
  backgroundColor: '#ffffff',
  textColor: '#1b1f24',
  buttonTextColor: '#ffffff',
};

export const defaultCamera: CameraStyle = {
  idFrameColor: '#ffffff',
  selfieOutlineColor: '#ffffff',
  captureButtonColor: '#ffffff',
};

/** Turns the workflow's branding into customisation groups. */
export function fromWorkflowConfig(w: WorkflowSdkConfig | undefined | null): CustomizationInput {
  if (!w || typeof w !== 'object') return {};
  const theme: Partial<Theme> = {};
  const landing: Partial<Landing> = {};
  const c = w.colors ?? {};
  if (c.primary) theme.primaryColor = c.primary;
  if (c.secondary) theme.secondaryColor = c.secondary;
  if (c.text) theme.textColor = c.text;
  if (c.background) theme.backgroundColor = c.background;
  if (w.logo) landing.logoUrl = w.logo;
  if (w.title) landing.heroMessage = w.title;
  if (w.tagline) landing.tagline = w.tagline;
  if (w.hero_image) landing.heroImage = w.hero_image;
  if (w.background_image) landing.backgroundImage = w.background_image;
  return { theme, landing };
}

function pick<T extends object>(base: T, ...layers: (Partial<T> | undefined)[]): T {
  const out = { ...base } as Record<string, unknown>;
  for (const layer of layers) {
    if (!layer || typeof layer !== 'object') continue;
    for (const [k, v] of Object.entries(layer)) {
      // Only known keys with a non-empty string value: a stray key or an
      // empty string never blanks a default.
      if (k in out && typeof v === 'string' && v !== '') out[k] = v;
    }
  }
  return out as T;
}

/**
 * The configuration in force, lowest to highest priority: SDK defaults,
 * props, the workflow's SDK configuration (spec: the workflow overrides
 * props).
 */
export function resolveCustomization(
  defaults: Customization,
  props: CustomizationInput | undefined,
  workflow: WorkflowSdkConfig | undefined | null,
): Customization {
  const wf = fromWorkflowConfig(workflow);
  return {
    theme: pick(defaults.theme, props?.theme, wf.theme),
    landing: pick(defaults.landing, props?.landing, wf.landing),
    messages: pick(defaults.messages, props?.messages, wf.messages),
    camera: pick(defaults.camera, props?.camera, wf.camera),
  };
}
