!> colldiag for Fortran: `use colldiag`, over the C API through ISO_C_BINDING (colldiag.h is the manual;
!> each procedure here says only what differs from its C function). Optional: an application that does
!> not use Fortran never compiles this file.
!>
!>   mpif90 -c colldiag.f90 && mpicc -c colldiag.c && mpif90 app.f90 colldiag.o -o app
!>
!> Conventions, as HDF5's Fortran API:
!>  - Shapes and coordinates are given in Fortran order: dims(1) is the dimension that varies fastest,
!>    as in a Fortran array a(n1, n2, ...). The module reverses them for the C API (row-major). A file
!>    written from Fortran array a(n1, n2) with dims [n1, n2] holds a's elements in a's memory order.
!>  - Offsets and coordinates are 0-based: element a(i, j) of a 1-based array is (i-1, j-1).
!>  - Shapes, starts, counts, strides, blocks and coordinates are integer(int64) (HDF5's hsize_t).
!>  - Buffers: any array, of any type and rank, passed by address without a copy when it is contiguous
!>    (a strided section gets the compiler's temporary copy, as for any assumed-size argument).
!>  - Communicators: type(MPI_Comm) of mpi_f08 or an integer handle of the mpi module.
!>  - Every function returns 0 or a negative COLLDIAG_ERR_*; colldiag_strerror names it and
!>    colldiag_xfer_errmsg(x) / colldiag_last_errmsg() say what happened.
!>  - Handles (colldiag_file, colldiag_layout, colldiag_sel, colldiag_xfer) are owned by the caller and
!>    freed with the matching _close / _free, exactly as in C.
!>  - Chunk info (colldiag_get_chunk_info) keeps C's order: coords(1) is the slowest chunk-grid dimension,
!>    index is the row-major chunk index; the array belongs to x, as in C.
module colldiag
    use, intrinsic :: iso_c_binding
    use mpi_f08, only: MPI_Comm, MPI_Info, MPI_File, MPI_INFO_NULL
    implicit none
    private

    ! ---- result codes (colldiag_err_t) ----
    integer(c_int), parameter, public :: COLLDIAG_OK = 0, COLLDIAG_ERR_ARG = -1, COLLDIAG_ERR_NOMEM = -2, &
        COLLDIAG_ERR_MPI = -3, COLLDIAG_ERR_IO = -4, COLLDIAG_ERR_UNSUPPORTED = -5, COLLDIAG_ERR_PEER = -6
    ! ---- drivers, transfer modes, schemes, results (the C enums' values) ----
    integer(c_int), parameter, public :: COLLDIAG_DRIVER_MPIO = 0, COLLDIAG_DRIVER_POSIX = 1
    integer(c_int), parameter, public :: COLLDIAG_MPIO_INDEPENDENT = 0, COLLDIAG_MPIO_COLLECTIVE = 1
    integer(c_int), parameter, public :: COLLDIAG_MPIO_COLLECTIVE_IO = 0, COLLDIAG_MPIO_INDIVIDUAL_IO = 1
    integer(c_int), parameter, public :: COLLDIAG_MPIO_CHUNK_DEFAULT = 0, COLLDIAG_MPIO_CHUNK_ONE_IO = 1, &
        COLLDIAG_MPIO_CHUNK_MULTI_IO = 2, COLLDIAG_MPIO_COLL_CHUNK_ATONCE_IO = 3, COLLDIAG_MPIO_ALL_CHUNK_IND_IO = 4, &
        COLLDIAG_MPIO_CHUNK_MULTI_IO_NO_OPT = 5, COLLDIAG_MPIO_CHUNK_AGGREGATE_IO = 6, COLLDIAG_MPIO_CHUNK_AUTO = 7
    integer(c_int), parameter, public :: COLLDIAG_MPIO_NO_CHUNK_OPTIMIZATION = 0, COLLDIAG_MPIO_LINK_CHUNK = 1, &
        COLLDIAG_MPIO_MULTI_CHUNK = 2, COLLDIAG_MPIO_COLL_CHUNK_ATONCE = 3, COLLDIAG_MPIO_ALL_CHUNK_IND = 4, &
        COLLDIAG_MPIO_MULTI_CHUNK_NO_OPT = 5, COLLDIAG_MPIO_CHUNK_AGGREGATE = 6
    integer(c_int), parameter, public :: COLLDIAG_MPIO_NO_COLLECTIVE = 0, COLLDIAG_MPIO_CHUNK_INDEPENDENT = 1, &
        COLLDIAG_MPIO_CHUNK_COLLECTIVE = 2, COLLDIAG_MPIO_CHUNK_MIXED = 3, COLLDIAG_MPIO_CONTIGUOUS_COLLECTIVE = 4, &
        COLLDIAG_MPIO_CHUNK_CONTIGUOUS_COLLECTIVE = 6
    integer(c_int), parameter, public :: COLLDIAG_SELECT_SET = 0, COLLDIAG_SELECT_OR = 1
    ! ---- bytes at risk: colldiag_get_bytes_at_risk's kinds (bits) ----
    integer(c_int), parameter, public :: COLLDIAG_RISK_HOLES = 1, COLLDIAG_RISK_COMPACT = 2, COLLDIAG_RISK_MAYBE = 4, &
        COLLDIAG_RISK_READS = 8
    integer, parameter, public :: COLLDIAG_MAX_RANK = 32

    ! ---- handles: the C pointers, owned by the caller ----
    type, public :: colldiag_file
        type(c_ptr) :: p = c_null_ptr
    end type
    type, public :: colldiag_layout
        type(c_ptr) :: p = c_null_ptr
    end type
    type, public :: colldiag_sel
        type(c_ptr) :: p = c_null_ptr
    end type
    type, public :: colldiag_xfer
        type(c_ptr) :: p = c_null_ptr
    end type
    !> The memory selection of a packed buffer (C's NULL mem_sel).
    type(colldiag_sel), parameter, public :: COLLDIAG_PACKED = colldiag_sel(c_null_ptr)

    !> One rank's piece of one chunk, as C's colldiag_chunk_info.
    type, bind(c), public :: colldiag_chunk_info
        integer(c_int64_t) :: index
        integer(c_int64_t) :: coords(COLLDIAG_MAX_RANK)
        integer(c_int64_t) :: addr
        integer(c_int64_t) :: nelem
        integer(c_int) :: nproc, collective, owner, dataset
    end type

    public :: colldiag_file_open, colldiag_file_wrap, colldiag_file_close
    public :: colldiag_layout_contiguous, colldiag_layout_chunked, colldiag_layout_set_chunk_addrs, colldiag_layout_free
    public :: colldiag_sel_create, colldiag_sel_select_all, colldiag_sel_select_none, colldiag_sel_select_hyperslab, &
              colldiag_sel_select_elements, colldiag_sel_npoints, colldiag_sel_free
    public :: colldiag_xfer_create, colldiag_xfer_free, colldiag_set_dxpl_mpio, colldiag_set_dxpl_mpio_chunk_opt, &
              colldiag_set_dxpl_mpio_chunk_opt_num, colldiag_set_dxpl_mpio_chunk_opt_ratio, &
              colldiag_set_dxpl_mpio_collective_opt, &
              colldiag_set_coll_buffer
    public :: colldiag_write, colldiag_read, colldiag_plan, colldiag_plan_read
    public :: colldiag_write_multi, colldiag_read_multi, colldiag_plan_multi, colldiag_get_ndatasets, colldiag_get_dataset_mpio
    public :: colldiag_get_mpio_actual_chunk_opt_mode, colldiag_get_mpio_actual_io_mode, colldiag_get_mpio_no_collective_cause, &
              colldiag_get_chunk_info, colldiag_xfer_errmsg, colldiag_strerror, colldiag_last_errmsg, colldiag_chunk_opt_name, &
              colldiag_io_mode_name, colldiag_cause_string, colldiag_report_print
    public :: colldiag_scheme_reason, colldiag_get_bytes_at_risk, colldiag_risk_reason, colldiag_get_bytes_off_node, &
              colldiag_file_get_step_latency, colldiag_file_get_link_rate

    !> colldiag_file_open(comm, path, amode, f [, driver] [, info]): comm type(MPI_Comm) or integer;
    !> driver defaults to COLLDIAG_DRIVER_MPIO, info to MPI_INFO_NULL. Collective.
    interface colldiag_file_open
        module procedure file_open_f08, file_open_int
    end interface
    !> colldiag_file_wrap(comm, fh, f): your MPI_File (type(MPI_File) with type(MPI_Comm), or integers).
    interface colldiag_file_wrap
        module procedure file_wrap_f08, file_wrap_int
    end interface

    interface
        integer(c_int) function c_file_open_f(comm, path, amode, info, driver, out) bind(c, name="colldiag_file_open_f")
            import :: c_int, c_char, c_ptr
            integer(c_int), value :: comm, amode, info, driver
            character(kind=c_char), intent(in) :: path(*)
            type(c_ptr), intent(out) :: out
        end function
        integer(c_int) function c_file_wrap_f(comm, fh, out) bind(c, name="colldiag_file_wrap_f")
            import :: c_int, c_ptr
            integer(c_int), value :: comm, fh
            type(c_ptr), intent(out) :: out
        end function
        integer(c_int) function c_file_close(f) bind(c, name="colldiag_file_close")
            import :: c_int, c_ptr
            type(c_ptr), value :: f
        end function
        integer(c_int) function c_layout_contiguous(rank, dims, esize, addr, out) bind(c, name="colldiag_layout_contiguous")
            import :: c_int, c_int64_t, c_size_t, c_long_long, c_ptr
            integer(c_int), value :: rank
            integer(c_int64_t), intent(in) :: dims(*)
            integer(c_size_t), value :: esize
            integer(c_long_long), value :: addr
            type(c_ptr), intent(out) :: out
        end function
        integer(c_int) function c_layout_chunked(rank, dims, cdims, esize, base, out) bind(c, name="colldiag_layout_chunked")
            import :: c_int, c_int64_t, c_size_t, c_long_long, c_ptr
            integer(c_int), value :: rank
            integer(c_int64_t), intent(in) :: dims(*), cdims(*)
            integer(c_size_t), value :: esize
            integer(c_long_long), value :: base
            type(c_ptr), intent(out) :: out
        end function
        integer(c_int) function c_layout_set_chunk_addrs(l, n, addrs) bind(c, name="colldiag_layout_set_chunk_addrs")
            import :: c_int, c_int64_t, c_long_long, c_ptr
            type(c_ptr), value :: l
            integer(c_int64_t), value :: n
            integer(c_long_long), intent(in) :: addrs(*)
        end function
        subroutine c_layout_free(l) bind(c, name="colldiag_layout_free")
            import :: c_ptr
            type(c_ptr), value :: l
        end subroutine
        integer(c_int) function c_sel_create(rank, dims, out) bind(c, name="colldiag_sel_create")
            import :: c_int, c_int64_t, c_ptr
            integer(c_int), value :: rank
            integer(c_int64_t), intent(in) :: dims(*)
            type(c_ptr), intent(out) :: out
        end function
        integer(c_int) function c_sel_select_all(s) bind(c, name="colldiag_sel_select_all")
            import :: c_int, c_ptr
            type(c_ptr), value :: s
        end function
        integer(c_int) function c_sel_select_none(s) bind(c, name="colldiag_sel_select_none")
            import :: c_int, c_ptr
            type(c_ptr), value :: s
        end function
        integer(c_int) function c_sel_select_hyperslab(s, op, start, stride, count, block) &
                bind(c, name="colldiag_sel_select_hyperslab")
            import :: c_int, c_int64_t, c_ptr
            type(c_ptr), value :: s
            integer(c_int), value :: op
            integer(c_int64_t), intent(in) :: start(*), count(*)
            type(c_ptr), value :: stride, block
        end function
        integer(c_int) function c_sel_select_elements(s, op, n, coords) bind(c, name="colldiag_sel_select_elements")
            import :: c_int, c_int64_t, c_ptr
            type(c_ptr), value :: s
            integer(c_int), value :: op
            integer(c_int64_t), value :: n
            integer(c_int64_t), intent(in) :: coords(*)
        end function
        integer(c_int64_t) function c_sel_npoints(s) bind(c, name="colldiag_sel_npoints")
            import :: c_int64_t, c_ptr
            type(c_ptr), value :: s
        end function
        subroutine c_sel_free(s) bind(c, name="colldiag_sel_free")
            import :: c_ptr
            type(c_ptr), value :: s
        end subroutine
        integer(c_int) function c_xfer_create(out) bind(c, name="colldiag_xfer_create")
            import :: c_int, c_ptr
            type(c_ptr), intent(out) :: out
        end function
        subroutine c_xfer_free(x) bind(c, name="colldiag_xfer_free")
            import :: c_ptr
            type(c_ptr), value :: x
        end subroutine
        integer(c_int) function c_set_dxpl_mpio(x, v) bind(c, name="colldiag_set_dxpl_mpio")
            import :: c_int, c_ptr
            type(c_ptr), value :: x
            integer(c_int), value :: v
        end function
        integer(c_int) function c_set_chunk_opt(x, v) bind(c, name="colldiag_set_dxpl_mpio_chunk_opt")
            import :: c_int, c_ptr
            type(c_ptr), value :: x
            integer(c_int), value :: v
        end function
        integer(c_int) function c_set_chunk_opt_num(x, v) bind(c, name="colldiag_set_dxpl_mpio_chunk_opt_num")
            import :: c_int, c_ptr
            type(c_ptr), value :: x
            integer(c_int), value :: v
        end function
        integer(c_int) function c_set_chunk_opt_ratio(x, v) bind(c, name="colldiag_set_dxpl_mpio_chunk_opt_ratio")
            import :: c_int, c_ptr
            type(c_ptr), value :: x
            integer(c_int), value :: v
        end function
        integer(c_int) function c_set_collective_opt(x, v) bind(c, name="colldiag_set_dxpl_mpio_collective_opt")
            import :: c_int, c_ptr
            type(c_ptr), value :: x
            integer(c_int), value :: v
        end function
        integer(c_int) function c_set_coll_buffer(x, v) bind(c, name="colldiag_set_coll_buffer")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: x
            integer(c_size_t), value :: v
        end function
        integer(c_int) function c_write(f, l, fs, ms, buf, x) bind(c, name="colldiag_write")
            import :: c_int, c_ptr
            type(c_ptr), value :: f, l, fs, ms, x
            type(*), intent(in) :: buf(*)
        end function
        integer(c_int) function c_read(f, l, fs, ms, buf, x) bind(c, name="colldiag_read")
            import :: c_int, c_ptr
            type(c_ptr), value :: f, l, fs, ms, x
            type(*), intent(inout) :: buf(*)
        end function
        integer(c_int) function c_plan(f, l, fs, ms, x) bind(c, name="colldiag_plan")
            import :: c_int, c_ptr
            type(c_ptr), value :: f, l, fs, ms, x
        end function
        integer(c_int) function c_plan_read(f, l, fs, ms, x) bind(c, name="colldiag_plan_read")
            import :: c_int, c_ptr
            type(c_ptr), value :: f, l, fs, ms, x
        end function
        integer(c_int) function c_write_multi(f, n, ls, fss, mss, bufs, x) bind(c, name="colldiag_write_multi")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: f, x
            integer(c_size_t), value :: n
            type(c_ptr), intent(in) :: ls(*), fss(*), mss(*), bufs(*)
        end function
        integer(c_int) function c_read_multi(f, n, ls, fss, mss, bufs, x) bind(c, name="colldiag_read_multi")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: f, x
            integer(c_size_t), value :: n
            type(c_ptr), intent(in) :: ls(*), fss(*), mss(*), bufs(*)
        end function
        integer(c_int) function c_plan_multi(f, n, ls, fss, mss, x) bind(c, name="colldiag_plan_multi")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: f, x
            integer(c_size_t), value :: n
            type(c_ptr), intent(in) :: ls(*), fss(*), mss(*)
        end function
        integer(c_int) function c_get_ndatasets(x, n) bind(c, name="colldiag_get_ndatasets")
            import :: c_int, c_ptr, c_size_t
            type(c_ptr), value :: x
            integer(c_size_t), intent(out) :: n
        end function
        integer(c_int) function c_get_dataset_mpio(x, i, co, io, local, global) bind(c, name="colldiag_get_dataset_mpio")
            import :: c_int, c_int32_t, c_ptr, c_size_t
            type(c_ptr), value :: x
            integer(c_size_t), value :: i
            integer(c_int), intent(out) :: co, io
            integer(c_int32_t), intent(out) :: local, global
        end function
        integer(c_int) function c_get_chunk_opt(x, out) bind(c, name="colldiag_get_mpio_actual_chunk_opt_mode")
            import :: c_int, c_ptr
            type(c_ptr), value :: x
            integer(c_int), intent(out) :: out
        end function
        integer(c_int) function c_get_io_mode(x, out) bind(c, name="colldiag_get_mpio_actual_io_mode")
            import :: c_int, c_ptr
            type(c_ptr), value :: x
            integer(c_int), intent(out) :: out
        end function
        integer(c_int) function c_get_causes(x, local, global) bind(c, name="colldiag_get_mpio_no_collective_cause")
            import :: c_int, c_int32_t, c_ptr
            type(c_ptr), value :: x
            integer(c_int32_t), intent(out) :: local, global
        end function
        integer(c_int) function c_get_chunk_info(x, n, chunks) bind(c, name="colldiag_get_chunk_info")
            import :: c_int, c_int64_t, c_ptr
            type(c_ptr), value :: x
            integer(c_int64_t), intent(out) :: n
            type(c_ptr), intent(out) :: chunks
        end function
        type(c_ptr) function c_scheme_reason(x) bind(c, name="colldiag_scheme_reason")
            import :: c_ptr
            type(c_ptr), value :: x
        end function
        integer(c_int) function c_get_bytes_at_risk(x, bytes, kinds) bind(c, name="colldiag_get_bytes_at_risk")
            import :: c_int, c_int64_t, c_ptr
            type(c_ptr), value :: x
            integer(c_int64_t), intent(out) :: bytes ! uint64_t
            integer(c_int), intent(out) :: kinds     ! unsigned
        end function
        type(c_ptr) function c_risk_reason(x) bind(c, name="colldiag_risk_reason")
            import :: c_ptr
            type(c_ptr), value :: x
        end function
        integer(c_int) function c_get_bytes_off_node(x, bytes, known) bind(c, name="colldiag_get_bytes_off_node")
            import :: c_int, c_int64_t, c_ptr
            type(c_ptr), value :: x
            integer(c_int64_t), intent(out) :: bytes ! uint64_t
            integer(c_int), intent(out) :: known
        end function
        integer(c_int) function c_file_get_step_latency(f, seconds) bind(c, name="colldiag_file_get_step_latency")
            import :: c_int, c_double, c_ptr
            type(c_ptr), value :: f
            real(c_double), intent(out) :: seconds
        end function
        integer(c_int) function c_file_get_link_rate(f, rate) bind(c, name="colldiag_file_get_link_rate")
            import :: c_int, c_double, c_ptr
            type(c_ptr), value :: f
            real(c_double), intent(out) :: rate
        end function
        type(c_ptr) function c_xfer_errmsg(x) bind(c, name="colldiag_xfer_errmsg")
            import :: c_ptr
            type(c_ptr), value :: x
        end function
        type(c_ptr) function c_strerror(code) bind(c, name="colldiag_strerror")
            import :: c_ptr, c_int
            integer(c_int), value :: code
        end function
        type(c_ptr) function c_last_errmsg() bind(c, name="colldiag_last_errmsg")
            import :: c_ptr
        end function
        type(c_ptr) function c_chunk_opt_name(v) bind(c, name="colldiag_chunk_opt_name")
            import :: c_ptr, c_int
            integer(c_int), value :: v
        end function
        type(c_ptr) function c_io_mode_name(v) bind(c, name="colldiag_io_mode_name")
            import :: c_ptr, c_int
            integer(c_int), value :: v
        end function
        integer(c_size_t) function c_cause_string(cause, buf, len) bind(c, name="colldiag_cause_string")
            import :: c_size_t, c_int32_t, c_char
            integer(c_int32_t), value :: cause
            character(kind=c_char), intent(out) :: buf(*)
            integer(c_size_t), value :: len
        end function
        integer(c_int) function c_report_print_stdout(f, x) bind(c, name="colldiag_report_print_stdout")
            import :: c_int, c_ptr
            type(c_ptr), value :: f, x
        end function
        integer(c_size_t) function c_strlen(s) bind(c, name="strlen")
            import :: c_size_t, c_ptr
            type(c_ptr), value :: s
        end function
    end interface

contains

    ! ---- helpers: C strings in and out, Fortran order to C order ----

    function c_str(s) result(c)
        character(len=*), intent(in) :: s
        character(kind=c_char, len=len_trim(s) + 1) :: c
        c = trim(s) // c_null_char
    end function

    function f_str(p) result(s)
        type(c_ptr), intent(in) :: p
        character(len=:), allocatable :: s
        character(kind=c_char), pointer :: a(:)
        integer :: i, n
        if (.not. c_associated(p)) then
            s = ""
            return
        end if
        n = int(c_strlen(p))
        call c_f_pointer(p, a, [n])
        allocate(character(len=n) :: s)
        do i = 1, n
            s(i:i) = a(i)
        end do
    end function

    pure function rev(a) result(r)
        integer(c_int64_t), intent(in) :: a(:)
        integer(c_int64_t) :: r(size(a))
        r = a(size(a):1:-1)
    end function

    ! ---- files ----

    integer function file_open_f08(comm, path, amode, f, driver, info) result(rc)
        type(MPI_Comm), intent(in) :: comm
        character(len=*), intent(in) :: path
        integer, intent(in) :: amode
        type(colldiag_file), intent(out) :: f
        integer, intent(in), optional :: driver
        type(MPI_Info), intent(in), optional :: info
        integer :: d, i
        d = COLLDIAG_DRIVER_MPIO
        if (present(driver)) d = driver
        i = MPI_INFO_NULL%MPI_VAL
        if (present(info)) i = info%MPI_VAL
        rc = c_file_open_f(comm%MPI_VAL, c_str(path), amode, i, d, f%p)
    end function

    integer function file_open_int(comm, path, amode, f, driver, info) result(rc)
        integer, intent(in) :: comm
        character(len=*), intent(in) :: path
        integer, intent(in) :: amode
        type(colldiag_file), intent(out) :: f
        integer, intent(in), optional :: driver, info
        integer :: d, i
        d = COLLDIAG_DRIVER_MPIO
        if (present(driver)) d = driver
        i = MPI_INFO_NULL%MPI_VAL
        if (present(info)) i = info
        rc = c_file_open_f(comm, c_str(path), amode, i, d, f%p)
    end function

    integer function file_wrap_f08(comm, fh, f) result(rc)
        type(MPI_Comm), intent(in) :: comm
        type(MPI_File), intent(in) :: fh
        type(colldiag_file), intent(out) :: f
        rc = c_file_wrap_f(comm%MPI_VAL, fh%MPI_VAL, f%p)
    end function

    integer function file_wrap_int(comm, fh, f) result(rc)
        integer, intent(in) :: comm, fh
        type(colldiag_file), intent(out) :: f
        rc = c_file_wrap_f(comm, fh, f%p)
    end function

    !> Collective. Closes the MPI file only if colldiag opened it.
    integer function colldiag_file_close(f) result(rc)
        type(colldiag_file), intent(inout) :: f
        rc = c_file_close(f%p)
        f%p = c_null_ptr
    end function

    ! ---- layouts: dims in Fortran order ----

    integer function colldiag_layout_contiguous(dims, elem_size, addr, l) result(rc)
        integer(c_int64_t), intent(in) :: dims(:)
        integer, intent(in) :: elem_size
        integer(c_int64_t), intent(in) :: addr
        type(colldiag_layout), intent(out) :: l
        rc = c_layout_contiguous(size(dims), rev(dims), int(elem_size, c_size_t), int(addr, c_long_long), l%p)
    end function

    !> Chunked, dense addresses from base: chunk k of the C-order chunk grid at base + k * chunk bytes.
    integer function colldiag_layout_chunked(dims, chunk_dims, elem_size, base, l) result(rc)
        integer(c_int64_t), intent(in) :: dims(:), chunk_dims(:)
        integer, intent(in) :: elem_size
        integer(c_int64_t), intent(in) :: base
        type(colldiag_layout), intent(out) :: l
        if (size(chunk_dims) /= size(dims)) then
            rc = COLLDIAG_ERR_ARG
            return
        end if
        rc = c_layout_chunked(size(dims), rev(dims), rev(chunk_dims), int(elem_size, c_size_t), int(base, c_long_long), l%p)
    end function

    !> addrs(k + 1): the address of chunk k in C's row-major chunk-grid order (-1: not allocated).
    integer function colldiag_layout_set_chunk_addrs(l, addrs) result(rc)
        type(colldiag_layout), intent(in) :: l
        integer(c_int64_t), intent(in) :: addrs(:)
        integer(c_long_long) :: a(size(addrs))
        a = addrs
        rc = c_layout_set_chunk_addrs(l%p, int(size(addrs), c_int64_t), a)
    end function

    subroutine colldiag_layout_free(l)
        type(colldiag_layout), intent(inout) :: l
        call c_layout_free(l%p)
        l%p = c_null_ptr
    end subroutine

    ! ---- selections: Fortran order, 0-based ----

    integer function colldiag_sel_create(dims, s) result(rc)
        integer(c_int64_t), intent(in) :: dims(:)
        type(colldiag_sel), intent(out) :: s
        rc = c_sel_create(size(dims), rev(dims), s%p)
    end function

    integer function colldiag_sel_select_all(s) result(rc)
        type(colldiag_sel), intent(in) :: s
        rc = c_sel_select_all(s%p)
    end function

    integer function colldiag_sel_select_none(s) result(rc)
        type(colldiag_sel), intent(in) :: s
        rc = c_sel_select_none(s%p)
    end function

    !> start (0-based) and count per dimension, Fortran order; stride and block optional (C's NULL).
    integer function colldiag_sel_select_hyperslab(s, op, start, count, stride, block) result(rc)
        type(colldiag_sel), intent(in) :: s
        integer, intent(in) :: op
        integer(c_int64_t), intent(in) :: start(:), count(:)
        integer(c_int64_t), intent(in), optional :: stride(:), block(:)
        integer(c_int64_t), target :: st(size(start)), bl(size(start))
        type(c_ptr) :: pst, pbl
        pst = c_null_ptr
        pbl = c_null_ptr
        if (size(count) /= size(start)) then
            rc = COLLDIAG_ERR_ARG
            return
        end if
        if (present(stride)) then
            if (size(stride) /= size(start)) then
                rc = COLLDIAG_ERR_ARG
                return
            end if
            st = rev(stride)
            pst = c_loc(st)
        end if
        if (present(block)) then
            if (size(block) /= size(start)) then
                rc = COLLDIAG_ERR_ARG
                return
            end if
            bl = rev(block)
            pbl = c_loc(bl)
        end if
        rc = c_sel_select_hyperslab(s%p, op, rev(start), pst, rev(count), pbl)
    end function

    !> coords(:, k): the k-th point, Fortran order, 0-based; the points keep their order.
    integer function colldiag_sel_select_elements(s, op, coords) result(rc)
        type(colldiag_sel), intent(in) :: s
        integer, intent(in) :: op
        integer(c_int64_t), intent(in) :: coords(:, :)
        integer(c_int64_t) :: c(size(coords))
        integer :: k, r
        r = size(coords, 1)
        do k = 1, size(coords, 2)
            c((k - 1) * r + 1:k * r) = rev(coords(:, k))
        end do
        rc = c_sel_select_elements(s%p, op, int(size(coords, 2), c_int64_t), c)
    end function

    integer(c_int64_t) function colldiag_sel_npoints(s)
        type(colldiag_sel), intent(in) :: s
        colldiag_sel_npoints = c_sel_npoints(s%p)
    end function

    subroutine colldiag_sel_free(s)
        type(colldiag_sel), intent(inout) :: s
        call c_sel_free(s%p)
        s%p = c_null_ptr
    end subroutine

    ! ---- transfer properties ----

    integer function colldiag_xfer_create(x) result(rc)
        type(colldiag_xfer), intent(out) :: x
        rc = c_xfer_create(x%p)
    end function

    subroutine colldiag_xfer_free(x)
        type(colldiag_xfer), intent(inout) :: x
        call c_xfer_free(x%p)
        x%p = c_null_ptr
    end subroutine

    integer function colldiag_set_dxpl_mpio(x, mode) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(in) :: mode
        rc = c_set_dxpl_mpio(x%p, mode)
    end function

    integer function colldiag_set_dxpl_mpio_chunk_opt(x, opt) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(in) :: opt
        rc = c_set_chunk_opt(x%p, opt)
    end function

    integer function colldiag_set_dxpl_mpio_chunk_opt_num(x, num) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(in) :: num
        rc = c_set_chunk_opt_num(x%p, num)
    end function

    integer function colldiag_set_dxpl_mpio_chunk_opt_ratio(x, percent) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(in) :: percent
        rc = c_set_chunk_opt_ratio(x%p, percent)
    end function

    integer function colldiag_set_dxpl_mpio_collective_opt(x, opt) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(in) :: opt
        rc = c_set_collective_opt(x%p, opt)
    end function

    integer function colldiag_set_coll_buffer(x, bytes) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer(c_int64_t), intent(in) :: bytes
        rc = c_set_coll_buffer(x%p, int(bytes, c_size_t))
    end function

    ! ---- I/O: buf is any array, by address ----

    !> mem_sel: COLLDIAG_PACKED for a packed buffer (C's NULL).
    integer function colldiag_write(f, l, file_sel, mem_sel, buf, x) result(rc)
        type(colldiag_file), intent(in) :: f
        type(colldiag_layout), intent(in) :: l
        type(colldiag_sel), intent(in) :: file_sel, mem_sel
        type(*), intent(in) :: buf(*)
        type(colldiag_xfer), intent(in) :: x
        rc = c_write(f%p, l%p, file_sel%p, mem_sel%p, buf, x%p)
    end function

    integer function colldiag_read(f, l, file_sel, mem_sel, buf, x) result(rc)
        type(colldiag_file), intent(in) :: f
        type(colldiag_layout), intent(in) :: l
        type(colldiag_sel), intent(in) :: file_sel, mem_sel
        type(*), intent(inout) :: buf(*)
        type(colldiag_xfer), intent(in) :: x
        rc = c_read(f%p, l%p, file_sel%p, mem_sel%p, buf, x%p)
    end function

    !> Many datasets in one collective call: n = size(layouts); file_sels and mem_sels of the same size
    !> (a COLLDIAG_PACKED entry: that buffer is packed); bufs(i) = c_loc(the i-th array), which must be
    !> contiguous and have the target attribute. Dataset indices in results are 0-based, as in C.
    integer function colldiag_write_multi(f, layouts, file_sels, mem_sels, bufs, x) result(rc)
        type(colldiag_file), intent(in) :: f
        type(colldiag_layout), intent(in) :: layouts(:)
        type(colldiag_sel), intent(in) :: file_sels(:), mem_sels(:)
        type(c_ptr), intent(in) :: bufs(:)
        type(colldiag_xfer), intent(in) :: x
        type(c_ptr), allocatable :: lp(:), fp(:), mp(:)
        rc = multi_ptrs(layouts, file_sels, mem_sels, size(bufs), lp, fp, mp)
        if (rc == 0) rc = c_write_multi(f%p, int(size(layouts), c_size_t), lp, fp, mp, bufs, x%p)
    end function

    integer function colldiag_read_multi(f, layouts, file_sels, mem_sels, bufs, x) result(rc)
        type(colldiag_file), intent(in) :: f
        type(colldiag_layout), intent(in) :: layouts(:)
        type(colldiag_sel), intent(in) :: file_sels(:), mem_sels(:)
        type(c_ptr), intent(in) :: bufs(:)
        type(colldiag_xfer), intent(in) :: x
        type(c_ptr), allocatable :: lp(:), fp(:), mp(:)
        rc = multi_ptrs(layouts, file_sels, mem_sels, size(bufs), lp, fp, mp)
        if (rc == 0) rc = c_read_multi(f%p, int(size(layouts), c_size_t), lp, fp, mp, bufs, x%p)
    end function

    integer function colldiag_plan_multi(f, layouts, file_sels, mem_sels, x) result(rc)
        type(colldiag_file), intent(in) :: f
        type(colldiag_layout), intent(in) :: layouts(:)
        type(colldiag_sel), intent(in) :: file_sels(:), mem_sels(:)
        type(colldiag_xfer), intent(in) :: x
        type(c_ptr), allocatable :: lp(:), fp(:), mp(:)
        rc = multi_ptrs(layouts, file_sels, mem_sels, size(layouts), lp, fp, mp)
        if (rc == 0) rc = c_plan_multi(f%p, int(size(layouts), c_size_t), lp, fp, mp, x%p)
    end function

    !> The handles' C pointers, after checking that the arrays have one entry per dataset. A size
    !> mismatch is this rank's error before the call: the call is collective, so every rank must pass
    !> arrays of one size (as every rank must pass the same n in C).
    integer function multi_ptrs(layouts, file_sels, mem_sels, nbufs, lp, fp, mp) result(rc)
        type(colldiag_layout), intent(in) :: layouts(:)
        type(colldiag_sel), intent(in) :: file_sels(:), mem_sels(:)
        integer, intent(in) :: nbufs
        type(c_ptr), allocatable, intent(out) :: lp(:), fp(:), mp(:)
        integer :: i, n
        n = size(layouts)
        rc = 0
        if (size(file_sels) /= n .or. size(mem_sels) /= n .or. nbufs /= n) then
            rc = COLLDIAG_ERR_ARG
            return
        end if
        allocate (lp(max(n, 1)), fp(max(n, 1)), mp(max(n, 1)))
        do i = 1, n
            lp(i) = layouts(i)%p
            fp(i) = file_sels(i)%p
            mp(i) = mem_sels(i)%p
        end do
    end function

    !> n = the datasets of the last call (1 after a single call).
    integer function colldiag_get_ndatasets(x, n) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(out) :: n
        integer(c_size_t) :: cn
        rc = c_get_ndatasets(x%p, cn)
        n = int(cn)
    end function

    !> Dataset i's (0-based) chunk optimisation, I/O mode and causes in the last call.
    integer function colldiag_get_dataset_mpio(x, i, chunk_opt, io_mode, local, global) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(in) :: i
        integer, intent(out) :: chunk_opt, io_mode, local, global
        integer(c_int) :: co, io
        integer(c_int32_t) :: l, g
        rc = c_get_dataset_mpio(x%p, int(i, c_size_t), co, io, l, g)
        chunk_opt = int(co)
        io_mode = int(io)
        local = int(l)
        global = int(g)
    end function

    integer function colldiag_plan(f, l, file_sel, mem_sel, x) result(rc)
        type(colldiag_file), intent(in) :: f
        type(colldiag_layout), intent(in) :: l
        type(colldiag_sel), intent(in) :: file_sel, mem_sel
        type(colldiag_xfer), intent(in) :: x
        rc = c_plan(f%p, l%p, file_sel%p, mem_sel%p, x%p)
    end function

    ! colldiag_plan of a read (AUTO may choose apart for a read and a write)
    integer function colldiag_plan_read(f, l, file_sel, mem_sel, x) result(rc)
        type(colldiag_file), intent(in) :: f
        type(colldiag_layout), intent(in) :: l
        type(colldiag_sel), intent(in) :: file_sel, mem_sel
        type(colldiag_xfer), intent(in) :: x
        rc = c_plan_read(f%p, l%p, file_sel%p, mem_sel%p, x%p)
    end function

    ! ---- results ----

    integer function colldiag_get_mpio_actual_chunk_opt_mode(x, mode) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(out) :: mode
        integer(c_int) :: m
        rc = c_get_chunk_opt(x%p, m)
        mode = m
    end function

    integer function colldiag_get_mpio_actual_io_mode(x, mode) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(out) :: mode
        integer(c_int) :: m
        rc = c_get_io_mode(x%p, m)
        mode = m
    end function

    !> The cause bits (HDF5's H5D_MPIO_* values), local to this rank and global to the call.
    integer function colldiag_get_mpio_no_collective_cause(x, local, global) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer, intent(out) :: local, global
        integer(c_int32_t) :: l, g
        rc = c_get_causes(x%p, l, g)
        local = int(l)
        global = int(g)
    end function

    !> chunks => this rank's pieces of the last call (owned by x, valid until its next call or free).
    integer function colldiag_get_chunk_info(x, chunks) result(rc)
        type(colldiag_xfer), intent(in) :: x
        type(colldiag_chunk_info), pointer, intent(out) :: chunks(:)
        integer(c_int64_t) :: n
        type(c_ptr) :: p
        rc = c_get_chunk_info(x%p, n, p)
        if (rc /= 0 .or. n == 0 .or. .not. c_associated(p)) then
            allocate(chunks(0))  ! an empty array the caller may deallocate or ignore
            return
        end if
        call c_f_pointer(p, chunks, [n])
    end function

    !> Why the chunk scheme was chosen, in words (AUTO: its estimates, and what it measured).
    function colldiag_scheme_reason(x) result(s)
        type(colldiag_xfer), intent(in) :: x
        character(len=:), allocatable :: s
        s = f_str(c_scheme_reason(x%p))
    end function

    !> bytes: integer(int64) (C's uint64_t; bytes at risk stay far below 2**63); kinds: an OR of
    !> COLLDIAG_RISK_* (test a bit with iand). The same on every rank of a collective call.
    integer function colldiag_get_bytes_at_risk(x, bytes, kinds) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer(c_int64_t), intent(out) :: bytes
        integer, intent(out) :: kinds
        integer(c_int) :: k
        rc = c_get_bytes_at_risk(x%p, bytes, k)
        kinds = k
    end function

    !> The bytes at risk in words: why, which ranks, and the change that removes them ("" when none).
    function colldiag_risk_reason(x) result(s)
        type(colldiag_xfer), intent(in) :: x
        character(len=:), allocatable :: s
        s = f_str(c_risk_reason(x%p))
    end function

    !> known: 1 when the call's exchange learnt the nodes, 0 otherwise.
    integer function colldiag_get_bytes_off_node(x, bytes, known) result(rc)
        type(colldiag_xfer), intent(in) :: x
        integer(c_int64_t), intent(out) :: bytes
        integer, intent(out) :: known
        integer(c_int) :: k
        rc = c_get_bytes_off_node(x%p, bytes, k)
        known = k
    end function

    !> seconds: real(real64); 0 when not probed.
    integer function colldiag_file_get_step_latency(f, seconds) result(rc)
        type(colldiag_file), intent(in) :: f
        real(c_double), intent(out) :: seconds
        rc = c_file_get_step_latency(f%p, seconds)
    end function

    !> bytes_per_s: real(real64); 0 when not probed (one node).
    integer function colldiag_file_get_link_rate(f, bytes_per_s) result(rc)
        type(colldiag_file), intent(in) :: f
        real(c_double), intent(out) :: bytes_per_s
        rc = c_file_get_link_rate(f%p, bytes_per_s)
    end function

    function colldiag_xfer_errmsg(x) result(s)
        type(colldiag_xfer), intent(in) :: x
        character(len=:), allocatable :: s
        s = f_str(c_xfer_errmsg(x%p))
    end function

    function colldiag_strerror(code) result(s)
        integer, intent(in) :: code
        character(len=:), allocatable :: s
        s = f_str(c_strerror(code))
    end function

    function colldiag_last_errmsg() result(s)
        character(len=:), allocatable :: s
        s = f_str(c_last_errmsg())
    end function

    function colldiag_chunk_opt_name(mode) result(s)
        integer, intent(in) :: mode
        character(len=:), allocatable :: s
        s = f_str(c_chunk_opt_name(mode))
    end function

    function colldiag_io_mode_name(mode) result(s)
        integer, intent(in) :: mode
        character(len=:), allocatable :: s
        s = f_str(c_io_mode_name(mode))
    end function

    function colldiag_cause_string(cause) result(s)
        integer, intent(in) :: cause
        character(len=:), allocatable :: s
        character(kind=c_char) :: b(1024)
        integer(c_size_t) :: n
        integer :: i
        n = c_cause_string(int(cause, c_int32_t), b, int(size(b), c_size_t))
        n = min(n, int(size(b) - 1, c_size_t))
        allocate(character(len=n) :: s)
        do i = 1, int(n)
            s(i:i) = b(i)
        end do
    end function

    !> The text report on stdout (C's), after flushing Fortran's unit 6. Collective; rank 0 prints.
    integer function colldiag_report_print(f, x) result(rc)
        use, intrinsic :: iso_fortran_env, only: output_unit
        type(colldiag_file), intent(in) :: f
        type(colldiag_xfer), intent(in) :: x
        flush(output_unit)
        rc = c_report_print_stdout(f%p, x%p)
    end function

end module colldiag
