<?php
/*
 * Differential oracle for capability checks: loads the oracle's WordPress (database included) and prints,
 * as JSON, every user's roles, the facts of a sample of posts, and user_can() for the meta and primitive
 * capabilities the CMS maps. Run by test/capabilities-vs-wordpress.test.ts; prints nothing useful when the
 * oracle is not set up.
 */
$_SERVER['HTTP_HOST'] = '127.0.0.1';
$_SERVER['SERVER_NAME'] = '127.0.0.1';
require '/usr/share/wordpress/wp-load.php';

$users = get_users( array( 'orderby' => 'ID' ) );
$posts = get_posts( array( 'post_type' => array( 'post', 'page' ), 'post_status' => array( 'publish', 'draft', 'pending', 'private', 'future' ), 'posts_per_page' => -1, 'orderby' => 'ID', 'order' => 'DESC' ) );
// One post per (type, status, author) combination is enough.
$sample = array();
foreach ( $posts as $post ) {
	$key = $post->post_type . '|' . $post->post_status . '|' . $post->post_author;
	if ( ! isset( $sample[ $key ] ) ) $sample[ $key ] = $post;
}
$meta = array( 'edit_post', 'read_post', 'delete_post', 'publish_post', 'edit_post_meta' );
$primitive = array( 'edit_posts', 'edit_others_posts', 'publish_posts', 'read_private_posts', 'upload_files', 'edit_pages', 'publish_pages', 'list_users', 'create_users', 'edit_users', 'delete_users', 'promote_users', 'manage_options', 'manage_categories', 'edit_theme_options', 'unfiltered_html', 'edit_term', 'delete_term', 'assign_term', 'edit_user', 'delete_user', 'remove_user', 'promote_user', 'create_app_password', 'customize', 'read' );
$out = array( 'users' => array(), 'posts' => array(), 'checks' => array() );
foreach ( $users as $user ) $out['users'][] = array( 'id' => $user->ID, 'roles' => array_values( $user->roles ) );
foreach ( $sample as $post ) $out['posts'][] = array( 'id' => $post->ID, 'type' => $post->post_type, 'status' => $post->post_status, 'authorId' => (int) $post->post_author, 'parentId' => $post->post_parent );
foreach ( $users as $user ) {
	foreach ( $sample as $post ) {
		foreach ( $meta as $cap ) {
			$args = 'edit_post_meta' === $cap ? array( $post->ID, '_secret' ) : array( $post->ID );
			$out['checks'][] = array( $user->ID, $cap, $args, user_can( $user, $cap, ...$args ) );
		}
	}
	foreach ( $primitive as $cap ) {
		$args = in_array( $cap, array( 'edit_user', 'delete_user', 'remove_user', 'promote_user', 'create_app_password' ), true ) ? array( $users[1]->ID ) : array();
		if ( in_array( $cap, array( 'edit_term', 'delete_term', 'assign_term' ), true ) ) $args = array( 1 );
		$out['checks'][] = array( $user->ID, $cap, $args, user_can( $user, $cap, ...$args ) );
		if ( 'edit_user' === $cap ) $out['checks'][] = array( $user->ID, $cap, array( $user->ID ), user_can( $user, $cap, $user->ID ) );
	}
}
$out['options'] = array( 'default_category' => (int) get_option( 'default_category' ), 'page_on_front' => (int) get_option( 'page_on_front' ), 'page_for_posts' => (int) get_option( 'page_for_posts' ), 'page_for_privacy_policy' => (int) get_option( 'wp_page_for_privacy_policy' ) );
echo wp_json_encode( $out );
