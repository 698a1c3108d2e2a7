//go:build tools

// Package tools records the Kubernetes commands the local test cluster builds, so that go.mod and
// go.sum keep every module they need. It is never compiled into anything.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
