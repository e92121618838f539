# Sourced by run.sh and cluster.sh: a scenario's ringcast-load flags as defaults that the script's
# own arguments replace one by one (`--clients 4000` replaces the default --clients), and the
# steps both scripts take before a run.
#
#   help_if_asked SCRIPT_PATH "$@"   # -h/--help: prints the script's header comment, exits 0
#   build_load_tools ROOT BUILD      # says so, configures BUILD (Release) if needed; ninja checks it anyway
#   declare -A want=([--clients]=10000 [--expect-zero-loss]=)   # name -> value ('' = no value)
#   order=(--clients --expect-zero-loss)                        # the order they are passed in
#   reserved=" --target --server-pid "                          # set by the script itself
#   merge_flags SCRIPT "$@"      # sets load_args; exits 2 on a reserved flag or a stray word
#
# Flags that take no value are known by name (no_value); every other flag takes the next word.
no_value=" --expect-zero-loss --tls --help -h "
merge_flags() {
  local script=$1 arg name
  shift
  while (($#)); do
    arg=$1
    shift
    name=${arg%%=*}
    if [[ $reserved == *" $name "* ]]; then
      echo "$script: $name is set by this script" >&2
      exit 2
    fi
    case $arg in
      --*=*)
        [[ -v "want[$name]" ]] || order+=("$name")
        want[$name]=${arg#*=}
        ;;
      --*)
        [[ -v "want[$arg]" ]] || order+=("$arg")
        if [[ $no_value == *" $arg "* ]]; then
          want[$arg]=
        else
          (($#)) || { echo "$script: $arg needs a value" >&2; exit 2; }
          want[$arg]=$1
          shift
        fi
        ;;
      *)
        echo "$script: unexpected argument '$arg' (flags are --name value)" >&2
        exit 2
        ;;
    esac
  done
  load_args=()
  for name in "${order[@]}"; do
    load_args+=("$name")
    [[ -z ${want[$name]} ]] || load_args+=("${want[$name]}")
  done
}

help_if_asked() {
  local script=$1 arg
  shift
  for arg in "$@"; do
    if [[ $arg == -h || $arg == --help ]]; then
      # The header comment, up to the first line that is not one.
      awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$script"
      exit 0
    fi
  done
}

build_load_tools() {
  local root=$1 build=$2
  # Said every time, before ninja looks: the first build takes minutes.
  echo "building ringcast and ringcast-load in ${build#"$root"/}/ (done in a second if they are up to date; a first build takes minutes)" >&2
  if [[ ! -f $build/build.ninja ]]; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRINGCAST_BUILD_TESTS=OFF \
      -DRINGCAST_BUILD_BENCH=OFF >&2
  fi
  # Always let ninja check: a stale binary would measure old code.
  ninja -C "$build" ringcast ringcast-load >&2
}
