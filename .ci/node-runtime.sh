# Sourced by .ci/run. node_bin MAJOR prints the bin directory of a Node.js of that major line:
# the machine's own when it already is that line, or else one unpacked from the npm registry's
# node-linux-<arch> package (it ships the official binaries), cached between runs. Nothing else is
# needed on the machine than an npm that reaches the registry.
node_bin() {
  local major=$1
  local current
  current=$(node --version 2>/dev/null || true)
  if [ "${current%%.*}" = "v$major" ]; then
    dirname "$(command -v node)"
    return
  fi
  local arch
  case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      echo "no node-linux package for $(uname -m)" >&2
      return 1
      ;;
  esac
  local cache="${XDG_CACHE_HOME:-$HOME/.cache}/meeting-ci/node-$major-$arch"
  if [ ! -x "$cache/package/bin/node" ]; then
    echo "fetching Node.js $major from the npm registry (node-linux-$arch@$major)" >&2
    local scratch
    scratch=$(mktemp -d)
    (cd "$scratch" && npm pack "node-linux-$arch@$major" --silent >/dev/null)
    rm -rf "$cache" && mkdir -p "$cache"
    tar xzf "$scratch"/node-linux-*.tgz -C "$cache"
    rm -rf "$scratch"
  fi
  echo "$cache/package/bin"
}
