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
  // Further texts, overridable the same way.
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
  // The app's versions (React Native: no browser, no file picker).
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
export const languages: readonly Language[] = ['en', 'sw', 'fr'];

const en: Messages & LandingTexts = {
  heroMessage: 'Verify your identity',
  tagline: 'You need your ID card and about a minute.',
  getStartedButtonText: 'Get started',
  idFrontTitle: 'Front of your ID',
  idFrontSubtitle: 'Place the front of your ID inside the frame',
  idBackTitle: 'Back of your ID',
  idBackSubtitle: 'Turn the card over and place the back inside the frame',
  selfieTitle: 'Take a selfie',
  selfieSubtitle: 'Put your face inside the oval and look at the camera',
  reviewTitle: 'Check your photo',
  startVerificationButton: 'Start verification',
  retakeButton: 'Retake',
  continueButton: 'Continue',
  captureButton: 'Take photo',
  cancelButton: 'Cancel',
  guideNoCard: 'Place the card inside the frame',
  guideBlurry: 'Hold still: the picture is blurry',
  guideGlare: 'Too much glare: tilt the card away from the light',
  guideDark: 'Too dark: move to more light',
  guideHoldSteady: 'Hold steady…',
  guideReady: 'Looks good',
  guideSelfie: 'Good light, face straight on, no glasses or hat',
  submitting: 'Checking your documents…',
  done: 'Thank you. Your photos have been sent.',
  cameraDeniedTitle: 'Camera access is off',
  cameraDeniedText: 'Allow the camera in your browser settings, or choose a photo instead.',
  noCameraTitle: 'No camera found',
  noCameraText: 'Choose a photo of your document from this device.',
  appCameraDeniedText: 'Allow the camera for this app in your phone’s settings, then try again.',
  appNoCameraText: 'This device has no camera the app can use. Continue on a phone with a camera.',
  uploadButton: 'Choose a photo',
  retryCameraButton: 'Try the camera again',
  errorTitle: 'Something went wrong on our side',
  errorText: 'Your verification did not run. This says nothing about you. Please try again.',
  tryAgainButton: 'Try again',
  handoffButton: 'Continue on your phone',
  handoffTitle: 'Continue on your phone',
  handoffText: 'Scan this code with your phone’s camera. The code works once, for 10 minutes.',
  handoffWaiting: 'Waiting for your phone…',
  handoffOpened: 'Opened on your phone. Take the photos there.',
  handoffRunning: 'Checking your documents…',
  handoffExpired: 'This code has expired.',
  handoffNewCode: 'Show a new code',
  handoffDone: 'Done. You can go back to your computer.',
  handoffBack: 'Use this computer instead',
};

const sw: Messages & LandingTexts = {
  heroMessage: 'Thibitisha utambulisho wako',
  tagline: 'Unahitaji kitambulisho chako na takriban dakika moja.',
  getStartedButtonText: 'Anza',
  idFrontTitle: 'Upande wa mbele wa kitambulisho',
  idFrontSubtitle: 'Weka upande wa mbele wa kitambulisho chako ndani ya fremu',
  idBackTitle: 'Upande wa nyuma wa kitambulisho',
  idBackSubtitle: 'Geuza kadi na uweke upande wa nyuma ndani ya fremu',
  selfieTitle: 'Piga picha ya uso wako',
  selfieSubtitle: 'Weka uso wako ndani ya duara na utazame kamera',
  reviewTitle: 'Kagua picha yako',
  startVerificationButton: 'Anza uthibitishaji',
  retakeButton: 'Piga tena',
  continueButton: 'Endelea',
  captureButton: 'Piga picha',
  cancelButton: 'Ghairi',
  guideNoCard: 'Weka kadi ndani ya fremu',
  guideBlurry: 'Tulia: picha haiko wazi',
  guideGlare: 'Mng’ao mwingi: inamisha kadi mbali na mwanga',
  guideDark: 'Giza sana: sogea kwenye mwanga zaidi',
  guideHoldSteady: 'Shikilia bila kutikisika…',
  guideReady: 'Inaonekana vizuri',
  guideSelfie: 'Mwanga mzuri, uso moja kwa moja, bila miwani wala kofia',
  submitting: 'Tunakagua nyaraka zako…',
  done: 'Asante. Picha zako zimetumwa.',
  cameraDeniedTitle: 'Ruhusa ya kamera imezimwa',
  cameraDeniedText: 'Ruhusu kamera katika mipangilio ya kivinjari, au chagua picha badala yake.',
  noCameraTitle: 'Hakuna kamera',
  noCameraText: 'Chagua picha ya hati yako kutoka kwenye kifaa hiki.',
  appCameraDeniedText: 'Ruhusu kamera kwa programu hii katika mipangilio ya simu yako, kisha ujaribu tena.',
  appNoCameraText: 'Kifaa hiki hakina kamera ambayo programu inaweza kutumia. Endelea kwenye simu yenye kamera.',
  uploadButton: 'Chagua picha',
  retryCameraButton: 'Jaribu kamera tena',
  errorTitle: 'Hitilafu imetokea upande wetu',
  errorText: 'Uthibitishaji wako haukufanyika. Hili si jibu kukuhusu. Tafadhali jaribu tena.',
  tryAgainButton: 'Jaribu tena',
  handoffButton: 'Endelea kwenye simu yako',
  handoffTitle: 'Endelea kwenye simu yako',
  handoffText: 'Changanua msimbo huu kwa kamera ya simu yako. Msimbo unatumika mara moja, kwa dakika 10.',
  handoffWaiting: 'Tunasubiri simu yako…',
  handoffOpened: 'Imefunguliwa kwenye simu yako. Piga picha huko.',
  handoffRunning: 'Tunakagua nyaraka zako…',
  handoffExpired: 'Msimbo huu umeisha muda.',
  handoffNewCode: 'Onyesha msimbo mpya',
  handoffDone: 'Imekamilika. Unaweza kurudi kwenye kompyuta yako.',
  handoffBack: 'Tumia kompyuta hii badala yake',
};

const fr: Messages & LandingTexts = {
  heroMessage: 'Vérifiez votre identité',
  tagline: 'Il vous faut votre pièce d’identité et environ une minute.',
  getStartedButtonText: 'Commencer',
  idFrontTitle: 'Recto de votre pièce',
  idFrontSubtitle: 'Placez le recto de votre pièce d’identité dans le cadre',
  idBackTitle: 'Verso de votre pièce',
  idBackSubtitle: 'Retournez la carte et placez le verso dans le cadre',
  selfieTitle: 'Prenez un selfie',
  selfieSubtitle: 'Placez votre visage dans l’ovale et regardez la caméra',
  reviewTitle: 'Vérifiez votre photo',
  startVerificationButton: 'Lancer la vérification',
  retakeButton: 'Reprendre',
  continueButton: 'Continuer',
  captureButton: 'Prendre la photo',
  cancelButton: 'Annuler',
  guideNoCard: 'Placez la carte dans le cadre',
  guideBlurry: 'Ne bougez pas : l’image est floue',
  guideGlare: 'Trop de reflets : inclinez la carte',
  guideDark: 'Trop sombre : rapprochez-vous de la lumière',
  guideHoldSteady: 'Ne bougez plus…',
  guideReady: 'C’est bon',
  guideSelfie: 'Bonne lumière, visage de face, sans lunettes ni chapeau',
  submitting: 'Vérification de vos documents…',
  done: 'Merci. Vos photos ont été envoyées.',
  cameraDeniedTitle: 'L’accès à la caméra est désactivé',
  cameraDeniedText: 'Autorisez la caméra dans les réglages du navigateur, ou choisissez une photo.',
  noCameraTitle: 'Aucune caméra trouvée',
  noCameraText: 'Choisissez une photo de votre document sur cet appareil.',
  appCameraDeniedText: 'Autorisez la caméra pour cette application dans les réglages du téléphone, puis réessayez.',
  appNoCameraText: 'Cet appareil n’a pas de caméra utilisable par l’application. Continuez sur un téléphone équipé d’une caméra.',
  uploadButton: 'Choisir une photo',
  retryCameraButton: 'Réessayer la caméra',
  errorTitle: 'Un problème est survenu de notre côté',
  errorText: 'Votre vérification n’a pas eu lieu. Ce n’est pas un résultat vous concernant. Veuillez réessayer.',
  tryAgainButton: 'Réessayer',
  handoffButton: 'Continuer sur votre téléphone',
  handoffTitle: 'Continuer sur votre téléphone',
  handoffText: 'Scannez ce code avec l’appareil photo de votre téléphone. Il sert une fois, pendant 10 minutes.',
  handoffWaiting: 'En attente de votre téléphone…',
  handoffOpened: 'Ouvert sur votre téléphone. Prenez les photos là-bas.',
  handoffRunning: 'Vérification de vos documents…',
  handoffExpired: 'Ce code a expiré.',
  handoffNewCode: 'Afficher un nouveau code',
  handoffDone: 'Terminé. Vous pouvez revenir à votre ordinateur.',
  handoffBack: 'Utiliser plutôt cet ordinateur',
};

export const texts: Record<Language, Messages & LandingTexts> = { en, sw, fr };

/**
 * The first of the device's preferred languages (BCP 47 tags, most
 * preferred first) that the SDK has, by primary subtag; English otherwise.
 */
export function pickLanguage(preferred: readonly string[] | undefined): Language {
  for (const tag of preferred ?? []) {
    const primary = String(tag).toLowerCase().split(/[-_]/)[0] as Language;
    if (languages.includes(primary)) return primary;
  }
  return 'en';
}

/** The messages of a language, without the landing texts. */
export function messagesFor(lang: Language): Messages {
  const { heroMessage: _h, tagline: _t, getStartedButtonText: _g, ...m } = texts[lang];
  return m;
}
