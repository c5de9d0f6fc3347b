// Command nodejs-host-wrapper is installed as `pulumi-language-nodejs`: it runs Pulumi's Node language
// host v3.68 (`pulumi-language-nodejs-v3.68`, beside it) and relays every call to it unchanged, except
// RunPlugin, which that host predates ("not supported") and CLI 3.259 uses to start a Node policy pack
// (`pulumi preview --policy-pack <folder>`). For an analyzer, RunPlugin runs the policy analyzer script
// (`pulumi-analyzer-policy`, beside it; from sdk/v3's nodejs/dist) in the pack's folder, as the CLI
// did before language hosts ran policy packs, and streams its output back.
//
// Built from this module so it speaks the 3.259 CLI's protocol (scripts/setup).
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

const (
	// The Node host v3.68 and the analyzer script, as scripts/setup installs them beside this wrapper.
	wrappedHost = "pulumi-language-nodejs-v3.68"
	analyzer    = "pulumi-analyzer-policy"
	// maxMessage matches the engine's own limit for plugin messages (400 MiB).
	maxMessage = 400 * 1024 * 1024
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "pulumi-language-nodejs:", err)
		os.Exit(1)
	}
}

func run() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return err
	}
	dir := filepath.Dir(self)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	host := exec.CommandContext(ctx, filepath.Join(dir, wrappedHost), os.Args[1:]...)
	host.Stderr = os.Stderr
	hostOut, err := host.StdoutPipe()
	if err != nil {
		return err
	}
	if err := host.Start(); err != nil {
		return err
	}
	// The host's first line is its port, as the engine reads it from us.
	lines := bufio.NewReader(hostOut)
	port, err := lines.ReadString('\n')
	if err != nil {
		return fmt.Errorf("%s printed no port: %w", wrappedHost, err)
	}
	go func() { _, _ = io.Copy(os.Stdout, lines) }()

	conn, err := grpc.NewClient("127.0.0.1:"+strings.TrimSpace(port),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(relayCodec{}), grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)))
	if err != nil {
		return err
	}
	defer conn.Close()

	server := grpc.NewServer(
		grpc.ForceServerCodec(relayCodec{}),
		grpc.UnknownServiceHandler(relay(conn)),
		grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage),
	)
	server.RegisterService(&runPluginService, runPluginServer{analyzer: filepath.Join(dir, analyzer)})
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("%d\n", listener.Addr().(*net.TCPAddr).Port)
	// The engine stops a language host by killing it; the host goes with it (CommandContext).
	go func() { _ = host.Wait(); cancel(); server.Stop() }()
	return server.Serve(listener)
}

// frame is a message relayed as it came, never decoded.
type frame struct{ payload []byte }

// relayCodec passes frames through as bytes and encodes RunPlugin's own messages as protobuf.
type relayCodec struct{}

func (relayCodec) Name() string { return "proto" }

func (relayCodec) Marshal(v any) ([]byte, error) {
	if f, ok := v.(*frame); ok {
		return f.payload, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (relayCodec) Unmarshal(data []byte, v any) error {
	if f, ok := v.(*frame); ok {
		f.payload = append([]byte(nil), data...)
		return nil
	}
	return proto.Unmarshal(data, v.(proto.Message))
}

// relay forwards a call this wrapper does not serve itself to the wrapped host: requests one way,
// responses (one or a stream) the other, with the caller's metadata.
func relay(conn *grpc.ClientConn) grpc.StreamHandler {
	return func(_ any, in grpc.ServerStream) error {
		method, ok := grpc.MethodFromServerStream(in)
		if !ok {
			return errors.New("no method in the call")
		}
		md, _ := metadata.FromIncomingContext(in.Context())
		ctx, cancel := context.WithCancel(metadata.NewOutgoingContext(in.Context(), md.Copy()))
		defer cancel()
		out, err := conn.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
		if err != nil {
			return err
		}
		go func() {
			for {
				f := &frame{}
				if err := in.RecvMsg(f); err != nil {
					_ = out.CloseSend()
					return
				}
				if err := out.SendMsg(f); err != nil {
					return
				}
			}
		}()
		for {
			f := &frame{}
			if err := out.RecvMsg(f); err != nil {
				if errors.Is(err, io.EOF) {
					return nil
				}
				return err
			}
			if err := in.SendMsg(f); err != nil {
				return err
			}
		}
	}
}

// runPluginService serves LanguageRuntime.RunPlugin; every other method of the service is relayed.
var runPluginService = grpc.ServiceDesc{
	ServiceName: "pulumirpc.LanguageRuntime",
	HandlerType: (*any)(nil),
	Streams: []grpc.StreamDesc{{
		StreamName:    "RunPlugin",
		ServerStreams: true,
		Handler: func(srv any, stream grpc.ServerStream) error {
			req := &pulumirpc.RunPluginRequest{}
			if err := stream.RecvMsg(req); err != nil {
				return err
			}
			return srv.(runPluginServer).runPlugin(req, stream)
		},
	}},
}

type runPluginServer struct{ analyzer string }

// runPlugin starts a Node policy pack the way the CLI did before language hosts ran them: the
// analyzer script with the engine's address and ".", in the pack's folder, whose @pulumi/pulumi
// it resolves. Its output and exit code go back as RunPlugin's stream.
func (s runPluginServer) runPlugin(req *pulumirpc.RunPluginRequest, stream grpc.ServerStream) error {
	if req.GetKind() != "analyzer" {
		return fmt.Errorf("the Node language host v3.68 runs no %q plugins from source; only policy packs (analyzers)", req.GetKind())
	}
	packDir := req.GetInfo().GetProgramDirectory()
	if packDir == "" {
		return errors.New("RunPlugin: no policy pack folder in the request")
	}
	cmd := exec.CommandContext(stream.Context(), s.analyzer, append(append([]string{}, req.GetArgs()...), ".")...)
	cmd.Dir = packDir
	cmd.Env = append(os.Environ(), req.GetEnv()...)
	var sending sync.Mutex
	send := func(resp *pulumirpc.RunPluginResponse) error {
		sending.Lock()
		defer sending.Unlock()
		return stream.SendMsg(resp)
	}
	cmd.Stdout = writerFunc(func(p []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stdout{Stdout: append([]byte(nil), p...)}})
	})
	cmd.Stderr = writerFunc(func(p []byte) error {
		return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Stderr{Stderr: append([]byte(nil), p...)}})
	})
	code := int32(0)
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return err
		}
		code = int32(exit.ExitCode())
	}
	return send(&pulumirpc.RunPluginResponse{Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: code}})
}

// writerFunc is an io.Writer that hands each chunk to a function.
type writerFunc func([]byte) error

func (w writerFunc) Write(p []byte) (int, error) {
	if err := w(p); err != nil {
		return 0, err
	}
	return len(p), nil
}
