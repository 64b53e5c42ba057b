/** Every text the SDK screens show. The first ten are the spec's `messages` keys. */
export interface Messages {
    idFrontTitle: string;
    idFrontSubtitle: string;
    idBackTitle: string;
    idBackSubtitle: string;
    selfieTitle: string;
    selfieSubtitle: string;
    reviewTitle: string;
    startVerificationButton: string;
    retakeButton: string;
    continueButton: string;
    captureButton: string;
    cancelButton: string;
    guideNoCard: string;
    guideBlurry: string;
    guideGlare: string;
    guideDark: string;
    guideHoldSteady: string;
    guideReady: string;
    guideSelfie: string;
    submitting: string;
    done: string;
    cameraDeniedTitle: string;
    cameraDeniedText: string;
    noCameraTitle: string;
    noCameraText: string;
    appCameraDeniedText: string;
    appNoCameraText: string;
    uploadButton: string;
    retryCameraButton: string;
    errorTitle: string;
    errorText: string;
    tryAgainButton: string;
    handoffButton: string;
    handoffTitle: string;
    handoffText: string;
    handoffWaiting: string;
    handoffOpened: string;
    handoffRunning: string;
    handoffExpired: string;
    handoffNewCode: string;
    handoffDone: string;
    handoffBack: string;
}
export interface LandingTexts {
    heroMessage: string;
    tagline: string;
    getStartedButtonText: string;
}
export type Language = 'en' | 'sw' | 'fr';
export declare const languages: readonly Language[];
export declare const texts: Record<Language, Messages & LandingTexts>;
/**
 * The first of the device's preferred languages (BCP 47 tags, most
 * preferred first) that the SDK has, by primary subtag; English otherwise.
 */
export declare function pickLanguage(preferred: readonly string[] | undefined): Language;
/** The messages of a language, without the landing texts. */
export declare function messagesFor(lang: Language): Messages;
