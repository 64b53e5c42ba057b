module github.com/tambua/tambua

go 1.26.8

require (
	github.com/Kagami/go-face v0.0.0-20210630145111-0c14797b4d0e
	github.com/disintegration/imaging v1.6.2
	github.com/go-playground/validator/v10 v10.28.0
	go.yaml.in/yaml/v3 v3.0.4
)

require (
	github.com/gabriel-vasile/mimetype v1.4.10 // indirect
	github.com/go-playground/locales v0.14.1 // indirect
	github.com/go-playground/universal-translator v0.18.1 // indirect
	github.com/leodido/go-urn v1.4.0 // indirect
	github.com/stretchr/testify v1.11.1 // indirect
	golang.org/x/crypto v0.42.0 // indirect
	golang.org/x/image v0.0.0-20191009234506-e7c1f5e7dbb8 // indirect
	golang.org/x/sys v0.36.0 // indirect
	golang.org/x/text v0.29.0 // indirect
)
