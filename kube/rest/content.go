package rest

import (
	"fmt"
	"strings"
)

// Content negotiation: which encoding a request asks for, and how the
// answer is read.
//
// kube-controller-manager reads built-in kinds as protobuf
// (--kube-api-content-type defaults to application/vnd.kubernetes.protobuf);
// client-go asks for it with Accept "application/vnd.kubernetes.protobuf,
// application/json", so that a server or proxy that only speaks JSON still
// answers. kcm asks the same way, by one rule (negotiate), and reads every
// answer by the Content-Type the server gave it, never by what it asked
// for.

// The media types of Config.ContentType.
const (
	ContentTypeProtobuf = "application/vnd.kubernetes.protobuf"
	ContentTypeJSON     = "application/json"
)

// The Accept headers the rule picks from.
const (
	acceptJSON          = "application/json"
	acceptMetaList      = "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptMetaObject    = "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	acceptProto         = ContentTypeProtobuf + ", " + ContentTypeJSON
	acceptProtoMetaList = ContentTypeProtobuf + ";as=PartialObjectMetadataList;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	acceptProtoMetaObject = ContentTypeProtobuf + ";as=PartialObjectMetadata;g=meta.k8s.io;v=v1," +
		"application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
	contentTypeJSON = ContentTypeJSON
)

// checkContentType validates Config.ContentType: "" (JSON), ContentTypeJSON
// or ContentTypeProtobuf. It reports whether reads ask for protobuf.
func checkContentType(cfg *Config) (bool, error) {
	switch cfg.ContentType {
	case "", ContentTypeJSON:
		return false, nil
	case ContentTypeProtobuf:
		return true, nil
	}
	return false, fmt.Errorf("rest: %s: content type %q is neither %q nor %q", cfg.Source, cfg.ContentType,
		ContentTypeJSON, ContentTypeProtobuf)
}

// protobufGroups are the API groups served by kube-apiserver v1.37 itself,
// all of whose kinds have a protobuf form (k8s.io/api's generated.proto):
// the legacy core group and the groups of the REST storage providers in
// pkg/controlplane/instance.go, plus apiextensions.k8s.io (the
// CustomResourceDefinition objects themselves, served by the
// apiextensions-apiserver inside kube-apiserver) and apiregistration.k8s.io
// (APIService, kube-aggregator). Custom resources have no protobuf form,
// nor do the groups kube-apiserver does not serve (extensions,
// admission.k8s.io, imagepolicy.k8s.io, apidiscovery.k8s.io).
var protobufGroups = map[string]bool{
	"":                             true,
	"admissionregistration.k8s.io": true,
	"apiextensions.k8s.io":         true,
	"apiregistration.k8s.io":       true,
	"apps":                         true,
	"authentication.k8s.io":        true,
	"authorization.k8s.io":         true,
	"autoscaling":                  true,
	"batch":                        true,
	"certificates.k8s.io":          true,
	"coordination.k8s.io":          true,
	"discovery.k8s.io":             true,
	"events.k8s.io":                true,
	"flowcontrol.apiserver.k8s.io": true,
	"internal.apiserver.k8s.io":    true,
	"lifecycle.k8s.io":             true,
	"networking.k8s.io":            true,
	"node.k8s.io":                  true,
	"policy":                       true,
	"rbac.authorization.k8s.io":    true,
	"resource.k8s.io":              true,
	"scheduling.k8s.io":            true,
	"storage.k8s.io":               true,
	"storagemigration.k8s.io":      true,
}

// HasProtobuf reports whether the resource's objects have a protobuf form:
// it is a built-in kind of kube-apiserver (see protobufGroups). Custom
// resources have none; their metadata-only form has one all the same
// (negotiate).
func (r Resource) HasProtobuf() bool { return protobufGroups[r.Group] }

// negotiate is the rule that picks a read's Accept header. A request asks
// for protobuf iff the client's ContentType is protobuf (clientProto),
// the codec reads protobuf (codecProto, decode.AsProto), and the answer
// has a protobuf form: the resource is a built-in kind, or the request is
// metadata-only (PartialObjectMetadata has a protobuf form for every
// resource, custom ones included). Protobuf is asked for as client-go
// asks, with JSON after it, so a server that does not offer it still
// answers; list picks the ...List form of a metadata-only request.
func negotiate(clientProto bool, res Resource, metaOnly, codecProto, list bool) string {
	proto := clientProto && codecProto && (metaOnly || res.HasProtobuf())
	switch {
	case !metaOnly && proto:
		return acceptProto
	case !metaOnly:
		return acceptJSON
	case list && proto:
		return acceptProtoMetaList
	case list:
		return acceptMetaList
	case proto:
		return acceptProtoMetaObject
	}
	return acceptMetaObject
}

// isProtobuf reports whether a response's Content-Type is kube-apiserver's
// protobuf ("application/vnd.kubernetes.protobuf", with any parameters,
// ";stream=watch" for a watch). Anything else is read as JSON.
func isProtobuf(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), ContentTypeProtobuf)
}
