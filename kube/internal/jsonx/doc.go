// Package jsonx is kcm's JSON at the byte level, shared by the object
// model (api) and the REST client (rest): the one json-iterator
// configuration kcm decodes and encodes objects with, and a scanner that
// finds where a JSON value ends without decoding it.
//
// The scanner is what makes the fast paths possible: api's RawObject codec
// finds apiVersion, kind and metadata and steps over spec and status;
// StripManagedFields cuts metadata.managedFields out of the bytes; rest
// finds the boundaries of list items and watch events in a stream. Its
// validation is shallow on purpose (strings end, brackets balance): the
// bytes come from kube-apiserver, and the decoder that reads a value later
// reports malformed content.
//
// It is internal: its spans and configuration are details of kcm's
// decoding, not part of its API.
package jsonx
