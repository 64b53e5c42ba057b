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
    colors?: {
        primary?: string;
        secondary?: string;
        text?: string;
        background?: string;
    };
}
export declare const defaultTheme: Theme;
export declare const defaultCamera: CameraStyle;
/** Turns the workflow's branding into customisation groups. */
export declare function fromWorkflowConfig(w: WorkflowSdkConfig | undefined | null): CustomizationInput;
/**
 * The configuration in force, lowest to highest priority: SDK defaults,
 * props, the workflow's SDK configuration (spec: the workflow overrides
 * props).
 */
export declare function resolveCustomization(defaults: Customization, props: CustomizationInput | undefined, workflow: WorkflowSdkConfig | undefined | null): Customization;
