package server

// CreditsLowEventForTest exposes creditsLowEvent to the external tests.
var CreditsLowEventForTest = creditsLowEvent
